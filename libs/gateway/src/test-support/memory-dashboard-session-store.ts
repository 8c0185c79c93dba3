import type { ActiveKey } from '@jumbe/domain';
import type {
  DashboardSessionStore,
  LiveDashboardSession,
  NewDashboardSession,
} from '../ports/dashboard-session-store';

interface StoredSession extends NewDashboardSession {
  id: string;
}

/**
 * Dashboard sessions in memory, with the PostgreSQL store's rules (dashboard-session.repository):
 * live while unexpired and while their key is among `keys` (a key removed there is revoked), the
 * account's oldest beyond the cap ended. Rows are in sign-in order.
 */
export class MemoryDashboardSessionStore implements DashboardSessionStore {
  /** Stored sessions by token hash; tests may age one by editing its `expiresAt`. */
  readonly sessions = new Map<string, StoredSession>();
  private nextId = 1;

  constructor(private readonly keys: ReadonlyMap<string, ActiveKey>) {}

  async open(session: NewDashboardSession, maxPerAccount: number): Promise<{ id: string }> {
    const id = `00000000-0000-4000-9000-${String(this.nextId++).padStart(12, '0')}`;
    this.sessions.set(session.tokenHash, { ...session, id });
    const ofAccount = [...this.sessions.values()].filter((s) => s.accountId === session.accountId);
    for (const ended of ofAccount.slice(0, Math.max(0, ofAccount.length - maxPerAccount))) {
      this.sessions.delete(ended.tokenHash);
    }
    return { id };
  }

  async findLive(tokenHash: string): Promise<LiveDashboardSession | null> {
    const session = this.sessions.get(tokenHash);
    if (session === undefined || session.expiresAt.getTime() <= Date.now()) return null;
    const key = [...this.keys.values()].find((k) => k.id === session.keyId);
    if (key === undefined) return null;
    const { id, accountId, keyId, expiresAt } = session;
    return { id, accountId, keyId, scope: key.scope, expiresAt };
  }

  async end(id: string): Promise<boolean> {
    for (const session of this.sessions.values()) {
      if (session.id === id) return this.sessions.delete(session.tokenHash);
    }
    return false;
  }
}
