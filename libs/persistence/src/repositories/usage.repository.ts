import { ZERO_USAGE, type UsageCounters } from '@jumbe/domain';
import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';
import type { UsageSnapshot, DailyHits } from '@jumbe/domain';
export type { UsageSnapshot, DailyHits };

const PERIOD_START = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Durable copy of the usage counters. The live counters are in Redis; gateways write what they
 * read there. Several gateways write the same row with values read at different moments, so a
 * write may only raise a counter ("at least"): a late, older snapshot never undoes a newer one.
 */
export class UsageRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The cycle's counters; zeros when nothing was recorded yet. */
  async load(accountId: string, periodStart: string): Promise<UsageCounters> {
    assertPeriodStart(periodStart);
    if (!isUuid(accountId)) return { ...ZERO_USAGE };
    const rows = (await this.dataSource.query(
      `SELECT api_hits, messages_sent, send_failures FROM usage_counters
        WHERE account_id = $1 AND period_start = $2::date`,
      [accountId, periodStart],
    )) as Array<{ api_hits: string; messages_sent: string; send_failures: string }>;
    if (rows.length === 0) return { ...ZERO_USAGE };
    return {
      apiHits: Number(rows[0].api_hits),
      messagesSent: Number(rows[0].messages_sent),
      sendFailures: Number(rows[0].send_failures),
    };
  }

  /** Raises the stored counters to `counters` where they are higher; never lowers one. */
  async saveAtLeast(accountId: string, periodStart: string, counters: UsageCounters): Promise<void> {
    await this.saveManyAtLeast([{ accountId, periodStart, counters }]);
  }

  /** `saveAtLeast` for many rows, in one statement (one round trip per flush). */
  async saveManyAtLeast(rows: readonly UsageSnapshot[]): Promise<void> {
    const merged = mergeSnapshots(rows);
    if (merged.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO usage_counters (account_id, period_start, api_hits, messages_sent, send_failures)
       SELECT u.* FROM unnest($1::uuid[], $2::date[], $3::bigint[], $4::bigint[], $5::bigint[])
              AS u (account_id, period_start, api_hits, messages_sent, send_failures)
        -- Counters of an account deleted meanwhile are dropped rather than failing the whole batch
        -- (the caller would retry it forever).
        WHERE EXISTS (SELECT 1 FROM accounts WHERE accounts.id = u.account_id)
       ON CONFLICT (account_id, period_start) DO UPDATE SET
         api_hits      = GREATEST(usage_counters.api_hits, EXCLUDED.api_hits),
         messages_sent = GREATEST(usage_counters.messages_sent, EXCLUDED.messages_sent),
         send_failures = GREATEST(usage_counters.send_failures, EXCLUDED.send_failures),
         updated_at    = now()`,
      [
        merged.map((row) => row.accountId),
        merged.map((row) => row.periodStart),
        merged.map((row) => row.counters.apiHits),
        merged.map((row) => row.counters.messagesSent),
        merged.map((row) => row.counters.sendFailures),
      ],
    );
  }
}

/**
 * Per-day API hits (the usage chart). Unlike the cycle counters these are deltas: each gateway
 * adds the hits it allowed itself, so adding is right where "at least" is right for the counters.
 */
export class DailyUsageRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Adds each row's hits to its day, in one statement; rows of deleted accounts are dropped. */
  async addHits(rows: readonly DailyHits[]): Promise<void> {
    const merged = new Map<string, DailyHits>();
    for (const row of rows) {
      if (!isUuid(row.accountId)) throw new RangeError(`Not an account id: "${row.accountId}"`);
      assertPeriodStart(row.day);
      if (!Number.isSafeInteger(row.apiHits) || row.apiHits < 0) {
        throw new RangeError(`Not a counter value: ${row.apiHits}`);
      }
      const key = `${row.accountId.toLowerCase()}/${row.day}`;
      const seen = merged.get(key);
      merged.set(key, seen ? { ...seen, apiHits: seen.apiHits + row.apiHits } : { ...row });
    }
    const batch = [...merged.values()].filter((row) => row.apiHits > 0);
    if (batch.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO usage_daily (account_id, day, api_hits)
       SELECT u.* FROM unnest($1::uuid[], $2::date[], $3::bigint[]) AS u (account_id, day, api_hits)
        WHERE EXISTS (SELECT 1 FROM accounts WHERE accounts.id = u.account_id)
       ON CONFLICT (account_id, day) DO UPDATE SET api_hits = usage_daily.api_hits + EXCLUDED.api_hits`,
      [batch.map((row) => row.accountId), batch.map((row) => row.day), batch.map((row) => row.apiHits)],
    );
  }

  /** The account's hits per day for `from` ≤ day < `to` (both `YYYY-MM-DD`), days without hits omitted. */
  async hitsBetween(accountId: string, from: string, to: string): Promise<Map<string, number>> {
    assertPeriodStart(from);
    assertPeriodStart(to);
    if (!isUuid(accountId)) return new Map();
    const rows = (await this.dataSource.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, api_hits FROM usage_daily
        WHERE account_id = $1 AND day >= $2::date AND day < $3::date`,
      [accountId, from, to],
    )) as Array<{ day: string; api_hits: string }>;
    return new Map(rows.map((row) => [row.day, Number(row.api_hits)]));
  }
}

/**
 * Validates the rows and folds duplicates (same account and cycle) into their per-column maximum:
 * one INSERT ... ON CONFLICT cannot update the same row twice.
 */
function mergeSnapshots(rows: readonly UsageSnapshot[]): UsageSnapshot[] {
  const byKey = new Map<string, UsageSnapshot>();
  for (const row of rows) {
    if (!isUuid(row.accountId)) throw new RangeError(`Not an account id: "${row.accountId}"`);
    assertPeriodStart(row.periodStart);
    for (const value of Object.values(row.counters)) {
      if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`Not a counter value: ${value}`);
    }
    const key = `${row.accountId.toLowerCase()}/${row.periodStart}`;
    const seen = byKey.get(key);
    byKey.set(
      key,
      seen
        ? {
            ...seen,
            counters: {
              apiHits: Math.max(seen.counters.apiHits, row.counters.apiHits),
              messagesSent: Math.max(seen.counters.messagesSent, row.counters.messagesSent),
              sendFailures: Math.max(seen.counters.sendFailures, row.counters.sendFailures),
            },
          }
        : row,
    );
  }
  return [...byKey.values()];
}

function assertPeriodStart(periodStart: string): void {
  if (!PERIOD_START.test(periodStart)) throw new RangeError(`Not a YYYY-MM-DD date: "${periodStart}"`);
}
