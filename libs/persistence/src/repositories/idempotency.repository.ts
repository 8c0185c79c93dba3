import type { DataSource } from 'typeorm';
import type { IdempotencyClaim } from '@jumbe/domain';
export type { IdempotencyClaim };

/** How long an Idempotency-Key is remembered (CONTRACT §5). */
export const IDEMPOTENCY_WINDOW_HOURS = 24;

/** A key whose first request has not finished yet is stored with this status. */
const IN_FLIGHT = 0;

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

  async sweep(): Promise<number> {
    const rows = (await this.dataSource.query(
      `DELETE FROM idempotency_records WHERE created_at < now() - make_interval(hours => $1) RETURNING key`,
      [IDEMPOTENCY_WINDOW_HOURS],
    )) as [unknown[], number] | unknown[];
    return Array.isArray(rows[0]) ? (rows[0] as unknown[]).length : rows.length;
  }
}
