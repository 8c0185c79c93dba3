import { ApiError } from '@jumbe/contracts';
import { requestIdOf } from '@jumbe/telemetry';
import type { RateLimiter } from '../ports/rate-limiter';
import { billingCycleAt, scopeAllows } from '@jumbe/domain';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JumbeConfig } from '@jumbe/config';
import { CONFIG, RATE_LIMITER } from '../gateway.tokens';
import { decodeJsonBody } from '../http/json-body';
import { type HitResult, UsageMeter } from '../metering/usage-meter';
import { AccountDirectory } from './account-directory';
import { DashboardSessions } from './dashboard-sessions';
import { presentedDashboardTokenHash } from './dashboard-token';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { orUnavailable } from '../http/dependency-failure';
import { presentedKeyHash } from './presented-key';
import type { AccountAccess, CustomerContext, Principal } from './principal';

export type CustomerRequest = FastifyRequest & { customer?: CustomerContext };

/**
 * The customer request pipeline, in the order CONTRACT §2 fixes: 401 bad key, 403 suspended,
 * 402 quota (the hit is counted here), 429 rate, 403 scope, then the body (413/415/400).
 * A dashboard session's token (CONTRACT §11) goes the same way with its key's account and scope,
 * but its requests are not API hits: they are limited per session instead (dashboard-sessions.ts).
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
    private readonly dashboardSessions: DashboardSessions,
    @Inject(CONFIG) config: JumbeConfig,
    @Inject(RATE_LIMITER) rateLimiter: RateLimiter,
  ) {
    this.bodyLimit = config.bodyLimitBytes;
    this.rateLimitPerMinute = config.rateLimitPerMinute;
    this.rateLimiter = rateLimiter;
  }

  /**
   * Synchronous up to the quota hit when the key and its account are cached (nearly every
   * request): one promise per request (the quota's round trip), not one per step.
   */
  canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<CustomerRequest>();
    const reply = http.getResponse<FastifyReply>();
    const dashboardTokenHash = presentedDashboardTokenHash(request.headers);
    if (dashboardTokenHash !== null) return this.admitDashboard(request, reply, dashboardTokenHash);
    const hash = presentedKeyHash(request, this.authenticator);
    const principal = this.authenticator.cachedPrincipal(hash);
    const access = principal === undefined ? undefined : this.directory.cached(principal.accountId);
    if (principal !== undefined && access !== undefined) return this.admit(request, reply, principal, access);
    return this.resolveThenAdmit(request, reply, hash);
  }

  /** A key or account the caches do not hold: resolved against the database first. */
  private async resolveThenAdmit(
    request: CustomerRequest,
    reply: FastifyReply,
    hash: string,
  ): Promise<boolean> {
    const principal = await this.authenticator.authenticateHash(hash);
    const access = await this.directory.get(principal.accountId);
    return this.admit(request, reply, principal, access);
  }

  /** A dashboard session's request: its key's account and scope, checked against the store. */
  private async admitDashboard(
    request: CustomerRequest,
    reply: FastifyReply,
    tokenHash: string,
  ): Promise<boolean> {
    const { dashboardSessionId, ...principal } = await this.dashboardSessions.resolve(tokenHash);
    const access = await this.directory.get(principal.accountId);
    return this.admit(request, reply, principal, access, dashboardSessionId);
  }

  private async admit(
    request: CustomerRequest,
    reply: FastifyReply,
    principal: Principal,
    access: AccountAccess,
    dashboardSessionId?: string,
  ): Promise<boolean> {
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
    const hit =
      dashboardSessionId === undefined
        ? await this.meter.countHit(access.accountId, limit)
        : await this.uncountedHit(access.accountId);
    setQuotaHeaders(reply, limit, hit.allowed ? Math.max(0, limit - hit.counters.apiHits) : 0, hit.cycle.end);
    if (!hit.allowed) {
      throw new ApiError(
        'monthly_limit_reached',
        `Monthly API hit limit of ${limit} reached on plan "${access.plan.name}". Upgrade the plan or wait for the next billing cycle (${hit.cycle.end.toISOString()}).`,
      );
    }
    if (dashboardSessionId !== undefined) await this.dashboardSessions.admitRequest(dashboardSessionId);
    else if (this.rateLimitPerMinute !== null)
      await this.enforceRateLimit(principal.keyId, this.rateLimitPerMinute);
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
      ...(dashboardSessionId === undefined ? {} : { dashboardSessionId }),
    };
    return true;
  }

  /**
   * A dashboard operation: let through with the counters as they stand, not counted, even at the
   * cap (the dashboard still shows a customer at the cap where they stand).
   */
  private async uncountedHit(accountId: string): Promise<HitResult> {
    const counters = await this.meter.current(accountId);
    return { allowed: true, counters, cycle: billingCycleAt(new Date()) };
  }

  private async enforceRateLimit(keyId: string, limit: number): Promise<void> {
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
  void reply.header('X-Quota-Limit', String(limit));
  void reply.header('X-Quota-Remaining', String(remaining));
  void reply.header('X-Quota-Reset', isoOf(reset));
}

let lastResetMs = NaN;
let lastResetIso = '';

/**
 * `reset.toISOString()`, remembered for the last instant asked: every request of a billing cycle
 * has the same reset, so the string is built once a cycle, not once a request.
 */
function isoOf(reset: Date): string {
  const ms = reset.getTime();
  if (ms !== lastResetMs) {
    lastResetIso = reset.toISOString();
    lastResetMs = ms;
  }
  return lastResetIso;
}
