import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { JumbeConfig } from '@jumbe/config';
import type { FastifyRequest } from 'fastify';
import { CONFIG } from '../gateway.tokens';
import { decodeJsonBody } from '../http/json-body';
import { AdminTokenCheck } from './admin-token-check';

/** Operator routes (`/api/v1/admin/*`): `Authorization: Bearer <JUMBE_ADMIN_TOKEN>`, compared in constant time. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly bodyLimit: number;

  constructor(
    private readonly check: AdminTokenCheck,
    @Inject(CONFIG) config: JumbeConfig,
  ) {
    this.bodyLimit = config.bodyLimitBytes;
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    this.check.verify(request.headers.authorization, request.ip);
    request.body = decodeJsonBody(request.body, this.bodyLimit);
    return true;
  }
}
