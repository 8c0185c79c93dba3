import type { DataSource } from 'typeorm';
import type { IdempotencyClaim } from '@jumbe/domain';
export type { IdempotencyClaim };

/** How long an Idempotency-Key is remembered (CONTRACT §5). */
export const IDEMPOTENCY_WINDOW_HOURS = 24;

/** A key whose first request has not finished yet is stored with this status. */
const IN_FLIGHT = 0;
/** A key whose try timed out (504: it may have been sent) and may be tried again. */
const OUTCOME_UNKNOWN = 1;

/**
 * Idempotency records, shared by every gateway through PostgreSQL: the first request with a key
 * claims it (one INSERT wins), later ones replay its stored response or are refused.
 */
export class IdempotencyRepository {
  constructor(private readonly dataSource: DataSource) {}

  async claim(accountId: string, key: string, requestHash: string): Promise<IdempotencyClaim> {
    // A record older than the window is forgotten first, so the key can be used again.
    await this.dataSource.query(
      `DELETE FROM idempotency_records WHERE account_id = $1 AND key = $2
         AND created_at < now() - make_interval(hours => $3)`,
      [accountId, key, IDEMPOTENCY_WINDOW_HOURS],
    );
    const inserted = (await this.dataSource.query(
      `INSERT INTO idempotency_records (account_id, key, request_hash, status_code, response)
       VALUES ($1, $2, $3, $4, 'null'::jsonb) ON CONFLICT DO NOTHING RETURNING key`,
      [accountId, key, requestHash, IN_FLIGHT],
    )) as unknown[];
    if (inserted.length > 0) return { kind: 'new' };
    const [existing] = (await this.dataSource.query(
      `SELECT request_hash, status_code, response FROM idempotency_records WHERE account_id = $1 AND key = $2`,
      [accountId, key],
    )) as { request_hash: string; status_code: number; response: unknown }[];
    if (!existing) return this.claim(accountId, key, requestHash);
    if (existing.request_hash !== requestHash) return { kind: 'conflict' };
    if (existing.status_code === OUTCOME_UNKNOWN) {
      // One retry takes it back (in flight again); a concurrent one finds it in flight.
      const retaken = (await this.dataSource.query(
        `UPDATE idempotency_records SET status_code = $3 WHERE account_id = $1 AND key = $2 AND status_code = $4
         RETURNING key`,
        [accountId, key, IN_FLIGHT, OUTCOME_UNKNOWN],
      )) as [unknown[], number] | unknown[];
      const rows = Array.isArray(retaken[0]) ? (retaken[0] as unknown[]) : retaken;
      return rows.length > 0
        ? { kind: 'new', afterUnknownOutcome: true }
        : this.claim(accountId, key, requestHash);
    }
    if (existing.status_code === IN_FLIGHT) return { kind: 'in_flight' };
    return { kind: 'replay', statusCode: existing.status_code, response: existing.response };
  }

  async complete(accountId: string, key: string, statusCode: number, response: unknown): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_records SET status_code = $3, response = $4::jsonb WHERE account_id = $1 AND key = $2`,
      [accountId, key, statusCode, JSON.stringify(response)],
    );
  }

  /** Forgets a claim whose request failed in a way worth retrying (5xx), so a retry can send. */
  async release(accountId: string, key: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM idempotency_records WHERE account_id = $1 AND key = $2`, [
      accountId,
      key,
    ]);
  }

  /** A claim whose try timed out (it may have been sent): kept, so its retry knows (OUTCOME_UNKNOWN). */
  async releaseUnknown(accountId: string, key: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_records SET status_code = $3 WHERE account_id = $1 AND key = $2 AND status_code = $4`,
      [accountId, key, OUTCOME_UNKNOWN, IN_FLIGHT],
    );
  }

  async sweep(): Promise<number> {
    const rows = (await this.dataSource.query(
      `DELETE FROM idempotency_records WHERE created_at < now() - make_interval(hours => $1) RETURNING key`,
      [IDEMPOTENCY_WINDOW_HOURS],
    )) as [unknown[], number] | unknown[];
    return Array.isArray(rows[0]) ? (rows[0] as unknown[]).length : rows.length;
  }
}
