import { ApiError } from '@jumbe/contracts';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Infrastructure } from '@jumbe/platform';
import type { FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { INFRASTRUCTURE } from '../gateway.tokens';
import { decodeJsonBody } from '../http/json-body';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Operator routes (`/api/v1/admin/*`): `Authorization: Bearer <JUMBE_ADMIN_TOKEN>`, compared in constant time. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected: Buffer | null;
  private readonly bodyLimit: number;

  constructor(@Inject(INFRASTRUCTURE) infrastructure: Infrastructure) {
    const token = infrastructure.config.adminToken;
    this.expected = token === null ? null : digest(token);
    this.bodyLimit = infrastructure.config.bodyLimitBytes;
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (this.expected === null) {
      throw new ApiError(
        'not_found',
        'The admin API is off: set JUMBE_ADMIN_TOKEN to enable it, or use the `npx jumbe` CLI.',
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    // Comparing fixed-length digests keeps the comparison constant-time whatever the input length.
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), this.expected)) {
      throw new ApiError(
        'unauthorized',
        'Missing or invalid admin token. Send "Authorization: Bearer <JUMBE_ADMIN_TOKEN>".',
      );
    }
    request.body = decodeJsonBody(request.body, this.bodyLimit);
    return true;
  }
}
