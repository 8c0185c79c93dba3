import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { JumbeConfig } from '@jumbe/config';
import type { FastifyRequest } from 'fastify';
import { CONFIG } from '../gateway.tokens';
import { decodeJsonBody } from '../http/json-body';
import { AdminTokenCheck } from './admin-token-check';
import { presentedDashboardTokenHash } from './dashboard-token';
import { OperatorSessions } from './operator-sessions';

/** An admin request, with the operator's dashboard session when it came with one's token. */
export type AdminRequest = FastifyRequest & { operatorSessionId?: string };

/**
 * Operator routes (`/api/v1/admin/*`): `Authorization: Bearer <JUMBE_ADMIN_TOKEN>`, compared in
 * constant time, or the token of the operator's dashboard session (CONTRACT §11), checked against
 * the store and limited per session.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly bodyLimit: number;

  constructor(
    private readonly check: AdminTokenCheck,
    private readonly operatorSessions: OperatorSessions,
    @Inject(CONFIG) config: JumbeConfig,
  ) {
    this.bodyLimit = config.bodyLimitBytes;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AdminRequest>();
    const sessionTokenHash = presentedDashboardTokenHash(request.headers);
    if (sessionTokenHash === null) this.check.verify(request.headers.authorization, request.ip);
    else {
      const { id } = await this.operatorSessions.resolve(sessionTokenHash);
      await this.operatorSessions.admitRequest(id);
      request.operatorSessionId = id;
    }
    request.body = decodeJsonBody(request.body, this.bodyLimit);
    return true;
  }
}
