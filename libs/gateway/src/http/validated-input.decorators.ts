import { parseInput } from '@jumbe/contracts';
import { Body, createParamDecorator, type ExecutionContext, type PipeTransform, Query } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { CustomerContext } from '../auth/principal';

/** Validates a request part against a contract schema (400 listing every problem). */
class ContractValidationPipe implements PipeTransform {
  constructor(
    private readonly schema: z.ZodType,
    private readonly what: string,
  ) {}

  transform(value: unknown): unknown {
    // An empty body is validated as {} so all-optional bodies (e.g. /session/start) accept it.
    return parseInput(this.schema, value ?? {}, this.what);
  }
}

/** The request body, validated against a contract schema. */
export const ValidBody = (schema: z.ZodType) => Body(new ContractValidationPipe(schema, 'request body'));

/** The query string, validated against a contract schema. */
export const ValidQuery = (schema: z.ZodType) => Query(new ContractValidationPipe(schema, 'query'));

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
