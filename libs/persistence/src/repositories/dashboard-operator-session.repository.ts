import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';

/** An operator's dashboard session to store: the token as a hash, bound to the admin token. */
export interface NewOperatorSession {
  tokenHash: string;
  /** An HMAC of the token hash keyed by the admin token: checks the admin token is still the same. */
  adminBinding: string;
  expiresAt: Date;
}

/** An operator's dashboard session as stored. */
export interface StoredOperatorSession {
  id: string;
  adminBinding: string;
  expiresAt: Date;
}

/**
 * The operator's dashboard sessions (CONTRACT §11, README "The dashboard"), in PostgreSQL so every
 * gateway checks the same rows at every request: sign-out and expiry hold on all of them at once.
 */
export class DashboardOperatorSessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Stores a new session; the expired ones and the oldest beyond `maxLive` are ended. */
  async open(session: NewOperatorSession, maxLive: number): Promise<{ id: string }> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('dashboard_operator_sessions'))`);
      await manager.query(`DELETE FROM dashboard_operator_sessions WHERE expires_at <= now()`);
      const [row] = (await manager.query(
        `INSERT INTO dashboard_operator_sessions (token_hash, admin_binding, expires_at)
         VALUES ($1, $2, $3) RETURNING id`,
        [session.tokenHash, session.adminBinding, session.expiresAt],
      )) as Array<{ id: string }>;
      if (!row) throw new Error('the operator session was not stored');
      await manager.query(
        `DELETE FROM dashboard_operator_sessions WHERE id IN (
           SELECT id FROM dashboard_operator_sessions ORDER BY created_at DESC, id DESC OFFSET $1)`,
        [maxLive],
      );
      return { id: row.id };
    });
  }

  /** The unexpired session whose token has this hash (its binding is the caller's to check). */
  async findLive(tokenHash: string): Promise<StoredOperatorSession | null> {
    const [row] = (await this.dataSource.query(
      `SELECT id, admin_binding, expires_at FROM dashboard_operator_sessions
        WHERE token_hash = $1 AND expires_at > now()`,
      [tokenHash],
    )) as Array<{ id: string; admin_binding: string; expires_at: Date }>;
    return row ? { id: row.id, adminBinding: row.admin_binding, expiresAt: row.expires_at } : null;
  }

  /** Ends a session (sign-out); false when it was already gone. */
  async end(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const [, affected] = (await this.dataSource.query(
      `DELETE FROM dashboard_operator_sessions WHERE id = $1`,
      [id],
    )) as [unknown, number];
    return affected > 0;
  }
}
