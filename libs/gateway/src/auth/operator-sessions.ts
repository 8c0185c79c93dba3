import { ApiError } from '@jumbe/contracts';
import type { RateLimiter } from '../ports/rate-limiter';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { OperatorSessionStore } from '../ports/operator-session-store';
import {
  DASHBOARD_REQUESTS_PER_MINUTE,
  DASHBOARD_SESSION_TTL_MS,
  DASHBOARD_SESSIONS_PER_ACCOUNT,
  DASHBOARD_SIGN_INS_PER_MINUTE,
} from './dashboard-sessions';
import { orUnavailable } from '../http/dependency-failure';
import { generateDashboardToken, hashDashboardToken } from './dashboard-token';
import { withinPerMinute } from './per-minute-limit';

/** What an operator's sign-in answers: the token is shown to the signing-in tab once. */
export interface OperatorSignIn {
  token: string;
  expiresAt: string;
  scope: 'admin';
}

/**
 * The operator's dashboard sessions (CONTRACT §11): the dashboard signs in with the admin token
 * once and keeps only a session token for the admin routes (at a human's pace, 12 hours at most).
 * Each session is bound to the admin token by an HMAC keyed by it, so a new JUMBE_ADMIN_TOKEN ends
 * every one of them at once, on every gateway, without the admin token being stored anywhere.
 */
export class OperatorSessions {
  constructor(
    private readonly store: OperatorSessionStore,
    private readonly rateLimiter: RateLimiter,
    private readonly adminToken: string | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** Opens a session; the caller has checked the admin token. */
  async signIn(): Promise<OperatorSignIn> {
    await withinPerMinute(
      this.rateLimiter,
      'dashboard-operator-sign-in',
      DASHBOARD_SIGN_INS_PER_MINUTE,
      'operator sign-ins',
    );
    const token = generateDashboardToken();
    const tokenHash = hashDashboardToken(token);
    const expiresAt = new Date(this.now() + DASHBOARD_SESSION_TTL_MS);
    await orUnavailable('database', () =>
      this.store.open(
        { tokenHash, adminBinding: this.bindingOf(tokenHash), expiresAt },
        DASHBOARD_SESSIONS_PER_ACCOUNT,
      ),
    );
    return { token, expiresAt: expiresAt.toISOString(), scope: 'admin' };
  }

  /** The session behind a presented token's hash; 401 once it has ended or the admin token changed. */
  async resolve(tokenHash: string): Promise<{ id: string }> {
    const session = await orUnavailable('database', () => this.store.findLive(tokenHash));
    const expected = Buffer.from(this.bindingOf(tokenHash), 'hex');
    const stored = Buffer.from(session?.adminBinding ?? '', 'hex');
    if (session === null || stored.length !== expected.length || !timingSafeEqual(stored, expected)) {
      throw new ApiError(
        'unauthorized',
        'This operator session has ended (signed out, 12 hours old, or the admin token changed). Sign in again.',
      );
    }
    return { id: session.id };
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

  private bindingOf(tokenHash: string): string {
    if (this.adminToken === null)
      throw new ApiError('not_found', 'The admin API is off: set JUMBE_ADMIN_TOKEN to enable it.');
    return createHmac('sha256', this.adminToken).update(tokenHash).digest('hex');
  }
}
