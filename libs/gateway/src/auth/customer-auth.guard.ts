import { ApiError } from '@jumbe/contracts';
import { requestIdOf } from '@jumbe/telemetry';
import type { RateLimiter } from '@jumbe/coordination';
import { billingCycleAt, scopeAllows } from '@jumbe/domain';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JumbeConfig } from '@jumbe/config';
import { CONFIG, RATE_LIMITER } from '../gateway.tokens';
import { decodeJsonBody } from '../http/json-body';
import { UsageMeter } from '../metering/usage-meter';
import { AccountDirectory } from './account-directory';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { orUnavailable } from './dependency-failure';
import { presentedKeyHash } from './presented-key';
import type { CustomerContext } from './principal';

export type CustomerRequest = FastifyRequest & { customer?: CustomerContext };

/**
 * The customer request pipeline, in the order CONTRACT §2 fixes: 401 bad key, 403 suspended,
 * 402 quota (the hit is counted here), 429 rate, 403 scope, then the body (413/415/400).
 * Every authenticated response carries the X-Quota-* headers, errors included.
 */
@Injectable()
export class CustomerAuthGuard implements CanActivate {
  private readonly bodyLimit: number;
  private readonly rateLimitPerMinute: number | null;
  private readonly rateLimiter: RateLimiter;

  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly directory: AccountDirectory,
    private readonly meter: UsageMeter,
    @Inject(CONFIG) config: JumbeConfig,
    @Inject(RATE_LIMITER) rateLimiter: RateLimiter,
  ) {
    this.bodyLimit = config.bodyLimitBytes;
    this.rateLimitPerMinute = config.rateLimitPerMinute;
    this.rateLimiter = rateLimiter;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<CustomerRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const principal = await this.authenticator.authenticateHash(
      presentedKeyHash(request, this.authenticator),
    );
    const access = await this.directory.get(principal.accountId);
    const limit = access.plan.monthlyApiHits;
    if (access.suspended) {
      // Refused before counting, yet authenticated: the quota headers still tell where it stands.
      const usage = await this.meter.current(access.accountId);
      setQuotaHeaders(reply, limit, Math.max(0, limit - usage.apiHits), billingCycleAt(new Date()).end);
      throw new ApiError(
        'account_suspended',
        'This account is suspended. Contact the operator of this Jumbe.',
      );
    }
    const hit = await this.meter.countHit(access.accountId, limit);
    setQuotaHeaders(reply, limit, hit.allowed ? Math.max(0, limit - hit.counters.apiHits) : 0, hit.cycle.end);
    if (!hit.allowed) {
      throw new ApiError(
        'monthly_limit_reached',
        `Monthly API hit limit of ${limit} reached on plan "${access.plan.name}". Upgrade the plan or wait for the next billing cycle (${hit.cycle.end.toISOString()}).`,
      );
    }
    await this.enforceRateLimit(principal.keyId);
    if (!scopeAllows(principal.scope, request.method)) {
      throw new ApiError(
        'forbidden',
        `This key has the "${principal.scope}" scope, which cannot call ${request.method} routes. Use a key with the "full" scope.`,
      );
    }
    request.body = decodeJsonBody(request.body, this.bodyLimit);
    request.customer = {
      principal,
      access,
      cycle: hit.cycle,
      usage: hit.counters,
      requestId: requestIdOf(request),
    };
    return true;
  }

  private async enforceRateLimit(keyId: string): Promise<void> {
    if (this.rateLimitPerMinute === null) return;
    const limit = this.rateLimitPerMinute;
    const result = await orUnavailable('coordination store', () =>
      this.rateLimiter.consume(`key:${keyId}`, limit, 60_000),
    );
    if (!result.allowed) {
      const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
      throw new ApiError(
        'rate_limited',
        `Too many requests: this key may make ${limit} per minute. Retry in ${seconds} s.`,
        undefined,
        {
          'Retry-After': String(seconds),
        },
      );
    }
  }
}

/** CONTRACT §3: every authenticated response carries the account's quota position. */
function setQuotaHeaders(reply: FastifyReply, limit: number, remaining: number, reset: Date): void {
  void reply.headers({
    'X-Quota-Limit': String(limit),
    'X-Quota-Remaining': String(remaining),
    'X-Quota-Reset': reset.toISOString(),
  });
}
