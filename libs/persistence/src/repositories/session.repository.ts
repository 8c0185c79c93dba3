import {
  type FencedWriteResult,
  RESUMABLE_END_REASONS,
  type SessionRef,
  type SessionState,
  type SessionStatePatch,
  type StartClaim,
} from '@jumbe/domain';
import type { DataSource, Repository } from 'typeorm';
import { Not } from 'typeorm';
import { SessionEntity } from '../entities/session.entity';
import { isUuid } from '../is-uuid';
import { type SessionRecord, toSessionRecord } from '../models/session-record';
import { sqlState, UNIQUE_VIOLATION } from './postgres-errors';

export type { SessionRef, SessionStatePatch, FencedWriteResult, StartClaim };

/**
 * Session records. Every write by a worker carries the fencing token of its shard lease and only
 * lands when no newer owner has written (`owner_token <= token`), so a worker that lost its lease
 * can never overwrite the new owner's state.
 */
export class SessionRepository {
  private readonly sessions: Repository<SessionEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.sessions = dataSource.getRepository(SessionEntity);
  }

  /** Sessions that count toward the plan's cap: every state but `disconnected` (CONTRACT §4). */
  async countActive(accountId: string): Promise<number> {
    if (!isUuid(accountId)) return 0;
    return this.sessions.countBy({ accountId, state: Not('disconnected') });
  }

  async find(ref: SessionRef): Promise<SessionRecord | null> {
    if (!isUuid(ref.accountId)) return null;
    const entity = await this.sessions.findOneBy({ accountId: ref.accountId, sessionId: ref.sessionId });
    return entity ? toSessionRecord(entity) : null;
  }

  /** The account's sessions, by session id (raw rows: an account may have ten thousand). */
  async list(accountId: string): Promise<SessionRecord[]> {
    if (!isUuid(accountId)) return [];
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM sessions WHERE account_id = $1 ORDER BY session_id`,
      [accountId],
    )) as RawSessionRow[];
    return rows.map(fromRaw);
  }

  /**
   * At most `limit` of the account's sessions whose id sorts after `after` (from the first when
   * null), by session id: a page of the list, read from the primary key's index.
   */
  async listPage(accountId: string, after: string | null, limit: number): Promise<SessionRecord[]> {
    if (!isUuid(accountId)) return [];
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM sessions
        WHERE account_id = $1 AND ($2::text IS NULL OR session_id > $2)
        ORDER BY session_id LIMIT $3`,
      [accountId, after, limit],
    )) as RawSessionRow[];
    return rows.map(fromRaw);
  }

  /**
   * Takes the active sessions of a shard (and the linked ones a transient WhatsApp problem ended,
   * to resume them: isResumableEnd) this worker has just leased under `token`, in one
   * statement: each row's owner token is raised to `token` before anything of the session is read
   * (from here on a write of the previous owner, credentials included, is refused: it can never
   * land between our read and our first write), and the rows are returned oldest update first,
   * the order they are restored in. A row a newer owner already holds is neither taken nor returned.
   */
  async takeOverShard(shard: number, token: number): Promise<SessionRecord[]> {
    // Active sessions, and those a transient WhatsApp problem ended (isResumableEnd): resumed too.
    const rows = (await this.dataSource.query(
      `WITH taken AS (
         UPDATE sessions SET owner_token = $2
          WHERE shard = $1 AND owner_token <= $2
            AND (state <> 'disconnected'
                 OR (reason = ANY($3::text[]) AND phone_number IS NOT NULL))
          RETURNING *)
       SELECT * FROM taken ORDER BY updated_at, session_id`,
      [shard, token, RESUMABLE_END_REASONS],
    )) as RawSessionRow[];
    return rows.map(fromRaw);
  }

  /**
   * Marks a session `starting` unless the account is at its session cap. The account row is
   * locked for the check, so concurrent starts on different workers are serialised and the cap is
   * exact. A session that is already active is not counted against itself.
   */
  async claimStart(ref: SessionRef, shard: number, token: number, maxSessions: number): Promise<StartClaim> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [ref.accountId]);
      const [{ count }] = (await manager.query(
        `SELECT count(*)::int AS count FROM sessions
          WHERE account_id = $1 AND session_id <> $2 AND state <> 'disconnected'`,
        [ref.accountId, ref.sessionId],
      )) as [{ count: number }];
      if (count >= maxSessions) return { outcome: 'limit_reached', active: count } as const;
      const rows = (await manager.query(
        `INSERT INTO sessions (account_id, session_id, shard, state, phone_number, reason, owner_token, updated_at)
         VALUES ($1, $2, $3, 'starting', NULL, NULL, $4, now())
         ON CONFLICT (account_id, session_id) DO UPDATE
           SET state = 'starting', reason = NULL, phone_number = NULL, owner_token = $4, shard = $3, updated_at = now()
           WHERE sessions.owner_token <= $4
         RETURNING *`,
        [ref.accountId, ref.sessionId, shard, token],
      )) as RawSessionRow[];
      const row = rows[0];
      return row
        ? ({ outcome: 'started', session: fromRaw(row) } as const)
        : ({ outcome: 'fenced' } as const);
    });
  }

  /** Writes a state change if no newer owner has written; reports a number already connected elsewhere. */
  async saveState(ref: SessionRef, token: number, patch: SessionStatePatch): Promise<FencedWriteResult> {
    try {
      const rows = (await this.dataSource.query(
        `UPDATE sessions SET state = $4, phone_number = $5, reason = $6, owner_token = $3, updated_at = now()
          WHERE account_id = $1 AND session_id = $2 AND owner_token <= $3
          RETURNING session_id`,
        [ref.accountId, ref.sessionId, token, patch.state, patch.phoneNumber, patch.reason],
      )) as [unknown[], number] | unknown[];
      return affected(rows) > 0 ? 'saved' : 'fenced';
    } catch (error) {
      if (sqlState(error) === UNIQUE_VIOLATION) return 'number_in_use';
      throw error;
    }
  }

  /**
   * Removes the record, fenced like every worker write. Its stored credentials go with it (their
   * foreign key), and so do the session's own settings — its proxy (sealed, with a password) and
   * its call handling — which may exist before a session does and so are keyed by account only:
   * a session created later under the same id starts without the deleted one's settings.
   */
  async delete(ref: SessionRef, token: number): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `WITH gone AS (
         DELETE FROM sessions WHERE account_id = $1 AND session_id = $2 AND owner_token <= $3
         RETURNING account_id, session_id
       ), proxy AS (
         DELETE FROM session_proxies p USING gone
          WHERE p.account_id = gone.account_id AND p.session_id = gone.session_id
       ), calls AS (
         DELETE FROM session_call_settings c USING gone
          WHERE c.account_id = gone.account_id AND c.session_id = gone.session_id
       )
       SELECT count(*)::int AS deleted FROM gone`,
      [ref.accountId, ref.sessionId, token],
    )) as Array<{ deleted: number }>;
    return (rows[0]?.deleted ?? 0) > 0;
  }
}

const COLUMNS = 'account_id, session_id, shard, state, phone_number, reason, owner_token, updated_at';

interface RawSessionRow {
  account_id: string;
  session_id: string;
  shard: number;
  state: SessionState;
  phone_number: string | null;
  reason: string | null;
  owner_token: string;
  updated_at: Date;
}

function fromRaw(row: RawSessionRow): SessionRecord {
  return {
    accountId: row.account_id,
    sessionId: row.session_id,
    shard: row.shard,
    state: row.state,
    phoneNumber: row.phone_number,
    reason: row.reason,
    ownerToken: Number(row.owner_token),
    updatedAt: row.updated_at,
  };
}

/** TypeORM's postgres driver returns [rows, affectedCount] for UPDATE … RETURNING. */
function affected(result: unknown): number {
  if (Array.isArray(result) && result.length === 2 && typeof result[1] === 'number') return result[1];
  return Array.isArray(result) ? result.length : 0;
}
