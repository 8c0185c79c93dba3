import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CustomerContext } from './principal';

/** The authenticated caller of a customer route (set by CustomerAuthGuard). */
export const Customer = createParamDecorator((_: unknown, context: ExecutionContext): CustomerContext =>
  customerOf(context.switchToHttp().getRequest<FastifyRequest & { customer?: CustomerContext }>()),
);

/** The caller CustomerAuthGuard admitted; a route without the guard is a programming error. */
export function customerOf(request: FastifyRequest & { customer?: CustomerContext }): CustomerContext {
  const customer = request.customer;
  if (!customer) throw new Error('Customer() used on a route without CustomerAuthGuard');
  return customer;
}
