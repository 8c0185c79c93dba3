import { ApiError } from '@jumbe/contracts';
import { MemoryRateLimiter, type RateLimiter } from '@jumbe/coordination';
import type { ActiveKey } from '@jumbe/domain';
import { MemoryDashboardSessionStore } from '../test-support/memory-dashboard-session-store';
import { MemoryOperatorSessionStore } from '../test-support/memory-operator-session-store';
import {
  DASHBOARD_REQUESTS_PER_MINUTE,
  DASHBOARD_SESSION_TTL_MS,
  DASHBOARD_SIGN_INS_PER_MINUTE,
  DashboardSessions,
} from './dashboard-sessions';
import { hashDashboardToken } from './dashboard-token';
import { OperatorSessions } from './operator-sessions';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const T0 = Date.parse('2031-03-15T10:00:00.000Z');

/** The ApiError `promise` rejects with (failing the test if it resolves or rejects otherwise). */
async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => new Error('expected an ApiError, but it resolved'),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** A rate limiter whose store is unreachable, as Redis would be. */
const unreachableLimiter: RateLimiter = {
  consume: async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  },
};

/**
 * Signing in to the dashboard (CONTRACT §11), by a key or by the operator: what a sign-in stores
 * and answers, the per-minute limit on sign-ins that keeps a script from minting sessions, and the
 * human pace each signed-in session is held to.
 * Real memory stores with the PostgreSQL ones' rules, and the real memory rate limiter on a clock
 * the test moves.
 */
describe('dashboard sign-ins', () => {
  let now: number;
  const clock = () => now;
  const keys = new Map<string, ActiveKey>();
  const principal = { keyId: 'key-1', accountId: 'account-1', scope: 'read' as const };

  beforeEach(() => {
    now = T0;
    keys.clear();
    keys.set('hash-1', { id: 'key-1', accountId: 'account-1', scope: 'read', revokesAt: null });
    keys.set('hash-2', { id: 'key-2', accountId: 'account-1', scope: 'full', revokesAt: null });
  });

  describe("a key's sign-in", () => {
    it('stores only the hash of the token it answers, with the key, its account and 12 hours to live', async () => {
      const store = new MemoryDashboardSessionStore(keys);
      const sessions = new DashboardSessions(store, new MemoryRateLimiter(clock), clock);

      const signIn = await sessions.signIn(principal);

      expect(signIn).toEqual({
        token: expect.stringMatching(/^jds_[A-Za-z0-9_-]{43}$/),
        expiresAt: new Date(T0 + DASHBOARD_SESSION_TTL_MS).toISOString(),
        scope: 'read',
      });
      expect(DASHBOARD_SESSION_TTL_MS).toBe(12 * 60 * 60 * 1000);
      expect([...store.sessions.values()]).toEqual([
        {
          id: expect.any(String),
          accountId: 'account-1',
          keyId: 'key-1',
          tokenHash: hashDashboardToken(signIn.token),
          expiresAt: new Date(T0 + DASHBOARD_SESSION_TTL_MS),
        },
      ]);
    });

    it('resolves the token to the key, the account and the key’s scope, until sign-out (then 401)', async () => {
      const store = new MemoryDashboardSessionStore(keys);
      const sessions = new DashboardSessions(store, new MemoryRateLimiter(clock), clock);
      const { token } = await sessions.signIn(principal);

      const resolved = await sessions.resolve(hashDashboardToken(token));
      expect(resolved).toEqual({
        keyId: 'key-1',
        accountId: 'account-1',
        scope: 'read',
        dashboardSessionId: expect.any(String),
      });

      await sessions.signOut(resolved.dashboardSessionId);
      const ended = await apiErrorOf(sessions.resolve(hashDashboardToken(token)));
      expect(ended.status).toBe(401);
      expect(ended.message).toBe(
        'This dashboard session has ended (signed out, 12 hours old, or its key revoked). Sign in again.',
      );
    });

    it(`allows ${DASHBOARD_SIGN_INS_PER_MINUTE} sign-ins a minute per key, then 429 with the seconds left; other keys go on`, async () => {
      const sessions = new DashboardSessions(
        new MemoryDashboardSessionStore(keys),
        new MemoryRateLimiter(clock),
        clock,
      );
      for (let i = 0; i < DASHBOARD_SIGN_INS_PER_MINUTE; i++) await sessions.signIn(principal);
      now = T0 + 15_500;

      const refused = await apiErrorOf(sessions.signIn(principal));

      expect(DASHBOARD_SIGN_INS_PER_MINUTE).toBe(10);
      expect(refused.status).toBe(429);
      expect(refused.code).toBe('rate_limited');
      expect(refused.headers).toEqual({ 'Retry-After': '45' });
      expect(refused.message).toBe('Too many sign-ins with this key: at most 10 a minute. Retry in 45 s.');
      await expect(sessions.signIn({ ...principal, keyId: 'key-2', scope: 'full' })).resolves.toMatchObject({
        scope: 'full',
      });
      now = T0 + 60_000;
      await expect(sessions.signIn(principal)).resolves.toMatchObject({ scope: 'read' });
    });

    it('answers 503 naming the coordination store when the sign-in limit cannot be counted', async () => {
      const sessions = new DashboardSessions(
        new MemoryDashboardSessionStore(keys),
        unreachableLimiter,
        clock,
      );

      const error = await apiErrorOf(sessions.signIn(principal));

      expect(error.status).toBe(503);
      expect(error.message).toBe(
        'Service temporarily unavailable (coordination store unreachable). Retry shortly.',
      );
    });

    it('answers 503 naming the database when the session cannot be stored', async () => {
      const store = new MemoryDashboardSessionStore(keys);
      store.open = async () => {
        throw new Error('Connection terminated unexpectedly');
      };
      const sessions = new DashboardSessions(store, new MemoryRateLimiter(clock), clock);

      const error = await apiErrorOf(sessions.signIn(principal));

      expect(error.status).toBe(503);
      expect(error.message).toBe('Service temporarily unavailable (database unreachable). Retry shortly.');
    });
    it('answers 503 naming the database when the session cannot be looked up or ended', async () => {
      const store = new MemoryDashboardSessionStore(keys);
      const refuse = async () => {
        throw new Error('Connection terminated unexpectedly');
      };
      store.findLive = refuse;
      store.end = refuse;
      const sessions = new DashboardSessions(store, new MemoryRateLimiter(clock), clock);

      // One call at a time: a rejection nobody awaits yet would end the test run, not fail the test.
      for (const failing of [
        () => sessions.resolve(hashDashboardToken('jds_x')),
        () => sessions.signOut('session-a'),
      ]) {
        const error = await apiErrorOf(failing());
        expect(error.status).toBe(503);
        expect(error.message).toBe('Service temporarily unavailable (database unreachable). Retry shortly.');
      }
    });
  });

  describe("a signed-in session's pace", () => {
    it(`allows each session ${DASHBOARD_REQUESTS_PER_MINUTE} requests a minute, on its own, then 429 naming the session`, async () => {
      const limiter = new MemoryRateLimiter(clock);
      const customer = new DashboardSessions(new MemoryDashboardSessionStore(keys), limiter, clock);
      const operator = new OperatorSessions(new MemoryOperatorSessionStore(), limiter, ADMIN_TOKEN, clock);
      for (let i = 0; i < DASHBOARD_REQUESTS_PER_MINUTE; i++) {
        await customer.admitRequest('session-a');
        await operator.admitRequest('session-c');
      }

      for (const refused of [customer.admitRequest('session-a'), operator.admitRequest('session-c')]) {
        const error = await apiErrorOf(refused);
        expect(error.status).toBe(429);
        expect(error.message).toBe(
          'Too many requests of this dashboard session: at most 120 a minute. Retry in 60 s.',
        );
      }
      await expect(customer.admitRequest('session-b')).resolves.toBeUndefined();
      await expect(operator.admitRequest('session-d')).resolves.toBeUndefined();
    });
  });

  describe("the operator's sign-in", () => {
    it('stores the token’s hash bound to the admin token, never the admin token, for 12 hours', async () => {
      const store = new MemoryOperatorSessionStore();
      const sessions = new OperatorSessions(store, new MemoryRateLimiter(clock), ADMIN_TOKEN, clock);

      const signIn = await sessions.signIn();

      expect(signIn).toEqual({
        token: expect.stringMatching(/^jds_[A-Za-z0-9_-]{43}$/),
        expiresAt: new Date(T0 + DASHBOARD_SESSION_TTL_MS).toISOString(),
        scope: 'admin',
      });
      const [stored] = [...store.sessions.entries()];
      expect(stored[0]).toBe(hashDashboardToken(signIn.token));
      expect(stored[1].expiresAt).toEqual(new Date(T0 + DASHBOARD_SESSION_TTL_MS));
      expect(stored[1].adminBinding).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(stored)).not.toContain(ADMIN_TOKEN);
      await expect(sessions.resolve(stored[0])).resolves.toEqual({ id: stored[1].id });
    });

    it('refuses a session whose stored binding is missing or cut short (401), as if the admin token changed', async () => {
      const store = new MemoryOperatorSessionStore();
      const sessions = new OperatorSessions(store, new MemoryRateLimiter(clock), ADMIN_TOKEN, clock);
      const { token } = await sessions.signIn();
      const stored = store.sessions.get(hashDashboardToken(token))!;

      for (const binding of ['', stored.adminBinding.slice(0, 32), `${stored.adminBinding}00`]) {
        stored.adminBinding = binding;
        const error = await apiErrorOf(sessions.resolve(hashDashboardToken(token)));
        expect(error.status).toBe(401);
        expect(error.message).toBe(
          'This operator session has ended (signed out, 12 hours old, or the admin token changed). Sign in again.',
        );
      }
    });

    it(`allows ${DASHBOARD_SIGN_INS_PER_MINUTE} operator sign-ins a minute in all, then 429`, async () => {
      const limiter = new MemoryRateLimiter(clock);
      const sessions = new OperatorSessions(new MemoryOperatorSessionStore(), limiter, ADMIN_TOKEN, clock);
      for (let i = 0; i < DASHBOARD_SIGN_INS_PER_MINUTE; i++) await sessions.signIn();
      // Another gateway's instance shares the limit through the limiter.
      const other = new OperatorSessions(new MemoryOperatorSessionStore(), limiter, ADMIN_TOKEN, clock);

      const refused = await apiErrorOf(other.signIn());

      expect(refused.status).toBe(429);
      expect(refused.message).toBe('Too many operator sign-ins: at most 10 a minute. Retry in 60 s.');
    });

    it('answers 404 when the admin API is off', async () => {
      const sessions = new OperatorSessions(
        new MemoryOperatorSessionStore(),
        new MemoryRateLimiter(clock),
        null,
        clock,
      );

      const error = await apiErrorOf(sessions.signIn());

      expect(error.status).toBe(404);
      expect(error.message).toBe('The admin API is off: set JUMBE_ADMIN_TOKEN to enable it.');
    });

    it('answers 503 naming the database when the session cannot be looked up', async () => {
      const store = new MemoryOperatorSessionStore();
      store.findLive = async () => {
        throw new Error('Connection terminated unexpectedly');
      };
      const sessions = new OperatorSessions(store, new MemoryRateLimiter(clock), ADMIN_TOKEN, clock);

      const error = await apiErrorOf(sessions.resolve(hashDashboardToken('jds_x')));

      expect(error.status).toBe(503);
      expect(error.message).toBe('Service temporarily unavailable (database unreachable). Retry shortly.');
    });
    it('answers 503 naming the database when the session cannot be stored or ended', async () => {
      const store = new MemoryOperatorSessionStore();
      const refuse = async () => {
        throw new Error('Connection terminated unexpectedly');
      };
      store.open = refuse;
      store.end = refuse;
      const sessions = new OperatorSessions(store, new MemoryRateLimiter(clock), ADMIN_TOKEN, clock);

      for (const failing of [() => sessions.signIn(), () => sessions.signOut('session-c')]) {
        const error = await apiErrorOf(failing());
        expect(error.status).toBe(503);
        expect(error.message).toBe('Service temporarily unavailable (database unreachable). Retry shortly.');
      }
    });
  });
});
