import type { DataSource, EntityManager } from 'typeorm';
import { isUuid } from '../is-uuid';
import type { CredentialChange, CredentialWriteResult, SessionRef } from '@jumbe/domain';

export type { CredentialChange, CredentialWriteResult };

/**
 * Reads and fenced writes of the `network_credentials` table, item by item. The values are opaque
 * here (the WhatsApp driver encrypts them before they arrive). Every write runs in one transaction
 * that first takes a share lock on the session row and checks `owner_token <= token`, exactly as
 * SessionRepository.saveState does: a worker that lost the shard can never overwrite the keys the
 * new owner is using, and a take-over (which updates the row) waits until a running write is done.
 */
export class NetworkCredentialStore {
  constructor(private readonly dataSource: DataSource) {}

  /** The stored values of these key ids of one kind (absent ids are simply missing). */
  async read(ref: SessionRef, kind: string, keyIds: string[]): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    if (keyIds.length === 0 || !isUuid(ref.accountId)) return found;
    const rows = (await this.dataSource.query(
      `SELECT key_id, value FROM network_credentials
        WHERE account_id = $1 AND session_id = $2 AND kind = $3 AND key_id = ANY($4::text[])`,
      [ref.accountId, ref.sessionId, kind, keyIds],
    )) as { key_id: string; value: Buffer }[];
    for (const row of rows) found.set(row.key_id, row.value);
    return found;
  }

  /**
   * Which items the session has stored (kind and id, no values), of every kind but `exceptKinds`;
   * null when there are more than `limit`. One read when a session opens, so its key store knows
   * which keys are absent without asking (a new contact's first message asks for four).
   */
  async storedKeys(
    ref: SessionRef,
    exceptKinds: readonly string[],
    limit: number,
  ): Promise<{ kind: string; keyId: string }[] | null> {
    if (!isUuid(ref.accountId)) return [];
    const rows = (await this.dataSource.query(
      `SELECT kind, key_id FROM network_credentials
        WHERE account_id = $1 AND session_id = $2 AND kind <> ALL($3::text[])
        LIMIT $4`,
      [ref.accountId, ref.sessionId, [...exceptKinds], limit + 1],
    )) as { kind: string; key_id: string }[];
    if (rows.length > limit) return null;
    return rows.map((row) => ({ kind: row.kind, keyId: row.key_id }));
  }

  /** How many items the session has stored (diagnostics and tests). */
  async count(ref: SessionRef): Promise<number> {
    if (!isUuid(ref.accountId)) return 0;
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS count FROM network_credentials WHERE account_id = $1 AND session_id = $2`,
      [ref.accountId, ref.sessionId],
    )) as [{ count: number }];
    return row.count;
  }

  /**
   * Applies all changes atomically, or none of them when fenced. One statement, so one round trip
   * (issue 32: this write runs for every message a session decrypts or encrypts, and the four of
   * a transaction — begin, lock, write, commit — were most of a steady message's database time).
   * The fence is the same as a transaction's: the `owner` CTE takes the share lock on the session
   * row before either change runs (it is referenced by both, so PostgreSQL evaluates it once, first),
   * a take-over updating the row waits for the statement, and a write that waited for a take-over
   * re-reads the row and finds itself fenced.
   */
  async write(ref: SessionRef, token: number, changes: CredentialChange[]): Promise<CredentialWriteResult> {
    if (!isUuid(ref.accountId)) return 'fenced';
    // The last change of an item wins, as if they had been applied one after the other.
    const latest = new Map<string, CredentialChange>();
    for (const change of changes) latest.set(JSON.stringify([change.kind, change.keyId]), change);
    const upserts = [...latest.values()].filter((change) => change.value !== null);
    const deletes = [...latest.values()].filter((change) => change.value === null);
    const [row] = (await this.dataSource.query(FENCED_WRITE, [
      ref.accountId,
      ref.sessionId,
      token,
      upserts.map((change) => change.kind),
      upserts.map((change) => change.keyId),
      upserts.map((change) => change.value),
      deletes.map((change) => change.kind),
      deletes.map((change) => change.keyId),
    ])) as [{ held: boolean }];
    return row.held ? 'saved' : 'fenced';
  }

  /** Removes every stored item of the session (logout, an abandoned login), fenced like a write. */
  async clear(ref: SessionRef, token: number): Promise<CredentialWriteResult> {
    if (!isUuid(ref.accountId)) return 'fenced';
    return this.dataSource.transaction(async (manager) => {
      if (!(await holdsSession(manager, ref, token))) return 'fenced';
      await manager.query(`DELETE FROM network_credentials WHERE account_id = $1 AND session_id = $2`, [
        ref.accountId,
        ref.sessionId,
      ]);
      return 'saved';
    });
  }
}

/**
 * Upserts ($4 kinds, $5 ids, $6 values) and deletes ($7 kinds, $8 ids) of one session's items, both
 * only when the session row is held by a token no newer than $3; answers whether it was.
 */
const FENCED_WRITE = `
  WITH owner AS (
    SELECT 1 FROM sessions
     WHERE account_id = $1 AND session_id = $2 AND owner_token <= $3
       FOR SHARE
  ), upserted AS (
    INSERT INTO network_credentials (account_id, session_id, kind, key_id, value, updated_at)
    SELECT $1, $2, item.kind, item.key_id, item.value, now()
      FROM unnest($4::text[], $5::text[], $6::bytea[]) AS item(kind, key_id, value)
     WHERE EXISTS (SELECT 1 FROM owner)
    ON CONFLICT (account_id, session_id, kind, key_id)
      DO UPDATE SET value = EXCLUDED.value, updated_at = now()
    RETURNING 1
  ), deleted AS (
    DELETE FROM network_credentials
     WHERE account_id = $1 AND session_id = $2
       AND (kind, key_id) IN (SELECT * FROM unnest($7::text[], $8::text[]))
       AND EXISTS (SELECT 1 FROM owner)
    RETURNING 1
  )
  SELECT EXISTS (SELECT 1 FROM owner) AS held`;

/** Locks the session row against a take-over for the rest of the transaction; false when fenced. */
async function holdsSession(manager: EntityManager, ref: SessionRef, token: number): Promise<boolean> {
  const rows = (await manager.query(
    `SELECT owner_token FROM sessions WHERE account_id = $1 AND session_id = $2 FOR SHARE`,
    [ref.accountId, ref.sessionId],
  )) as { owner_token: string }[];
  const row = rows[0];
  return row !== undefined && Number(row.owner_token) <= token;
}
