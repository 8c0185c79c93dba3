import type {
  NewOperatorSession,
  OperatorSessionStore,
  StoredOperatorSession,
} from '../ports/operator-session-store';

/**
 * The operator's dashboard sessions in memory, with the PostgreSQL store's rules
 * (dashboard-operator-session.repository): live while unexpired, the oldest beyond the cap ended.
 */
export class MemoryOperatorSessionStore implements OperatorSessionStore {
  /** Stored sessions by token hash, in sign-in order; tests may age one by editing its `expiresAt`. */
  readonly sessions = new Map<string, StoredOperatorSession>();
  private nextId = 1;

  async open(session: NewOperatorSession, maxLive: number): Promise<{ id: string }> {
    const id = `00000000-0000-4000-a000-${String(this.nextId++).padStart(12, '0')}`;
    this.sessions.set(session.tokenHash, {
      id,
      adminBinding: session.adminBinding,
      expiresAt: session.expiresAt,
    });
    for (const tokenHash of [...this.sessions.keys()].slice(0, Math.max(0, this.sessions.size - maxLive))) {
      this.sessions.delete(tokenHash);
    }
    return { id };
  }

  async findLive(tokenHash: string): Promise<StoredOperatorSession | null> {
    const session = this.sessions.get(tokenHash);
    return session === undefined || session.expiresAt.getTime() <= Date.now() ? null : session;
  }

  async end(id: string): Promise<boolean> {
    for (const [tokenHash, session] of this.sessions) {
      if (session.id === id) return this.sessions.delete(tokenHash);
    }
    return false;
  }
}
