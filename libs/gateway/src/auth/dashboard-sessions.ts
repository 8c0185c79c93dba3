import { ApiError } from '@jumbe/contracts';
import type { RateLimiter } from '../ports/rate-limiter';
import type { KeyScope } from '@jumbe/domain';
import type { DashboardSessionStore } from '../ports/dashboard-session-store';
import { orUnavailable } from '../http/dependency-failure';
import { generateDashboardToken, hashDashboardToken } from './dashboard-token';
import { withinPerMinute } from './per-minute-limit';
import type { Principal } from './principal';

/** A dashboard session lasts this long from its sign-in (CONTRACT §11). */
export const DASHBOARD_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Requests one dashboard session may make a minute: a human's pace, not a script's. */
export const DASHBOARD_REQUESTS_PER_MINUTE = 120;
/**
 * Live dashboard sessions an account may hold; a sign-in beyond ends the oldest. Without a cap,
 * signing in again and again would multiply the per-session rate into a free API.
 */
export const DASHBOARD_SESSIONS_PER_ACCOUNT = 20;
/** Sign-ins one key may make a minute (each one a row, and a session's worth of requests). */
export const DASHBOARD_SIGN_INS_PER_MINUTE = 10;

/** What a sign-in answers: the token is shown to the signing-in tab once, never stored in clear. */
export interface DashboardSignIn {
  token: string;
  expiresAt: string;
  scope: KeyScope;
}

/** The caller behind a dashboard token: its key's account and scope, and the session itself. */
export interface DashboardPrincipal extends Principal {
  dashboardSessionId: string;
}

/**
 * Dashboard sessions (CONTRACT §11, README "The dashboard"): a key signs in once and the tab then
 * calls the API with a token whose requests are dashboard operations, not API hits, at a human's
 * pace. The store is checked at every request, so sign-out, expiry and the key's revocation end a
 * session on every gateway at once.
 */
export class DashboardSessions {
  constructor(
    private readonly store: DashboardSessionStore,
    private readonly rateLimiter: RateLimiter,
    private readonly now: () => number = Date.now,
  ) {}

  /** Opens a session for the key that authenticated the sign-in. */
  async signIn(principal: Principal): Promise<DashboardSignIn> {
    await withinPerMinute(
      this.rateLimiter,
      `dashboard-sign-in:${principal.keyId}`,
      DASHBOARD_SIGN_INS_PER_MINUTE,
      'sign-ins with this key',
    );
    const token = generateDashboardToken();
    const expiresAt = new Date(this.now() + DASHBOARD_SESSION_TTL_MS);
    await orUnavailable('database', () =>
      this.store.open(
        {
          accountId: principal.accountId,
          keyId: principal.keyId,
          tokenHash: hashDashboardToken(token),
          expiresAt,
        },
        DASHBOARD_SESSIONS_PER_ACCOUNT,
      ),
    );
    return { token, expiresAt: expiresAt.toISOString(), scope: principal.scope };
  }

  /** The caller behind a presented token's hash; 401 once the session has ended. */
  async resolve(tokenHash: string): Promise<DashboardPrincipal> {
    const session = await orUnavailable('database', () => this.store.findLive(tokenHash));
    if (session === null) {
      throw new ApiError(
        'unauthorized',
        'This dashboard session has ended (signed out, 12 hours old, or its key revoked). Sign in again.',
      );
    }
    return {
      keyId: session.keyId,
      accountId: session.accountId,
      scope: session.scope,
      dashboardSessionId: session.id,
    };
  }

  /** Counts one request of the session against its per-minute allowance; 429 beyond. */
  async admitRequest(sessionId: string): Promise<void> {
    await withinPerMinute(
      this.rateLimiter,
      `dashboard-session:${sessionId}`,
      DASHBOARD_REQUESTS_PER_MINUTE,
      'requests of this dashboard session',
    );
  }

  async signOut(sessionId: string): Promise<void> {
    await orUnavailable('database', () => this.store.end(sessionId));
  }
}
