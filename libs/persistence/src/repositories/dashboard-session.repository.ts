import type { KeyScope } from '@jumbe/domain';
import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';

/** A dashboard session to store: its token only as a hash. */
export interface NewDashboardSession {
  accountId: string;
  keyId: string;
  tokenHash: string;
  expiresAt: Date;
}

/** A dashboard session that still works: not expired, not signed out, its key not revoked. */
export interface LiveDashboardSession {
  id: string;
  accountId: string;
  keyId: string;
  /** The key's scope as it is now. */
  scope: KeyScope;
  expiresAt: Date;
}

interface LiveRow {
  id: string;
  account_id: string;
  key_id: string;
  scope: KeyScope;
  expires_at: Date;
}

/**
 * Dashboard sessions (CONTRACT §11, README "The dashboard"), in PostgreSQL so every gateway of
 * either topology checks the same rows: a sign-out, an expiry or a key's revocation holds on all
 * of them at the next request, with no cache to invalidate.
 */
export class DashboardSessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores a new session, and ends the account's oldest live ones beyond `maxPerAccount` (those
   * expired or of a revoked key are swept first), in one transaction so concurrent sign-ins cannot
   * both keep theirs.
   */
  async open(session: NewDashboardSession, maxPerAccount: number): Promise<{ id: string }> {
    return this.dataSource.transaction(async (manager) => {
      // One sign-in of an account at a time: the count below then sees every other's row.
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('dashboard_sessions:' || $1))`, [
        session.accountId,
      ]);
      // Sessions that no longer work (expired, their key revoked) go first, so the cap counts live ones.
      await manager.query(
        `DELETE FROM dashboard_sessions s USING api_keys k
          WHERE s.key_id = k.id AND s.account_id = $1
            AND (s.expires_at <= now() OR (k.revoked_at IS NOT NULL AND k.revoked_at <= now()))`,
        [session.accountId],
      );
      const [row] = (await manager.query(
        `INSERT INTO dashboard_sessions (account_id, key_id, token_hash, expires_at)
         VALUES ($1, $2, $3, $4) RETURNING id`,
        [session.accountId, session.keyId, session.tokenHash, session.expiresAt],
      )) as Array<{ id: string }>;
      if (!row) throw new Error('the dashboard session was not stored');
      await manager.query(
        `DELETE FROM dashboard_sessions WHERE id IN (
           SELECT id FROM dashboard_sessions WHERE account_id = $1
           ORDER BY created_at DESC, id DESC OFFSET $2)`,
        [session.accountId, maxPerAccount],
      );
      return { id: row.id };
    });
  }

  /** The live session whose token has this hash; null when unknown, expired, or its key revoked. */
  async findLive(tokenHash: string): Promise<LiveDashboardSession | null> {
    const [row] = (await this.dataSource.query(
      `SELECT s.id, s.account_id, s.key_id, k.scope, s.expires_at
         FROM dashboard_sessions s JOIN api_keys k ON k.id = s.key_id
        WHERE s.token_hash = $1 AND s.expires_at > now()
          AND (k.revoked_at IS NULL OR k.revoked_at > now())`,
      [tokenHash],
    )) as LiveRow[];
    return row
      ? {
          id: row.id,
          accountId: row.account_id,
          keyId: row.key_id,
          scope: row.scope,
          expiresAt: row.expires_at,
        }
      : null;
  }

  /** Ends a session (sign-out); false when it was already gone. */
  async end(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const [, affected] = (await this.dataSource.query(`DELETE FROM dashboard_sessions WHERE id = $1`, [
      id,
    ])) as [unknown, number];
    return affected > 0;
  }
}
