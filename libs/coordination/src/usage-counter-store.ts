import type { UsageCounters } from '@jumbe/domain';

/** The counters a send outcome adds to; API hits only move through `tryHit`. */
export type UsageCounterField = 'messagesSent' | 'sendFailures';

export interface UsageHitResult {
  /** False when the cycle's apiHits had already reached the limit; then nothing was counted. */
  allowed: boolean;
  /** The counters after this call. */
  counters: UsageCounters;
}

/**
 * An account's usage counters for one billing cycle, shared by every gateway so that quota checks
 * are exact under concurrency (CONTRACT §3: with N concurrent requests at the cap, exactly the hits
 * up to the cap succeed). PostgreSQL stays the durable record; this store is the fast, atomic copy.
 *
 * Every method returns null when the cycle's counters are not in the store yet: the caller seeds
 * them from PostgreSQL (`seed`) and retries. The store never invents zeros for a missing cycle,
 * because a Redis restart would otherwise silently reset every account's quota.
 */
export interface UsageCounterStore {
  /**
   * Atomically counts one API hit unless apiHits is already >= limit (then allowed is false and
   * nothing changes). `limit` is a non-negative integer, or Infinity for no limit.
   */
  tryHit(accountId: string, cycleId: string, limit: number): Promise<UsageHitResult | null>;

  /** Atomically adds `amount` (an integer) to one counter. */
  add(
    accountId: string,
    cycleId: string,
    field: UsageCounterField,
    amount: number,
  ): Promise<UsageCounters | null>;

  /** Stores the counters only if the cycle has none yet; never overwrites (seeding races are harmless). */
  seed(accountId: string, cycleId: string, counters: UsageCounters): Promise<void>;

  read(accountId: string, cycleId: string): Promise<UsageCounters | null>;
}

/**
 * How long a cycle's counters stay in the store after seeding: longer than any calendar month, so
 * a cycle's counters outlive the cycle, and old cycles clean themselves up.
 */
export const USAGE_COUNTERS_TTL_MS = 40 * 24 * 60 * 60 * 1000;

export const USAGE_COUNTER_FIELDS: readonly UsageCounterField[] = ['messagesSent', 'sendFailures'];

/** Both implementations reject the same bad arguments, so the in-memory twin cannot hide a bug. */
export function assertValidHitLimit(limit: number): void {
  if (limit !== Number.POSITIVE_INFINITY && !(Number.isSafeInteger(limit) && limit >= 0)) {
    throw new RangeError(`limit must be a non-negative integer or Infinity, got ${limit}`);
  }
}

export function assertValidCounterUpdate(field: string, amount: number): void {
  if (!USAGE_COUNTER_FIELDS.includes(field as UsageCounterField)) {
    throw new RangeError(`field must be one of ${USAGE_COUNTER_FIELDS.join(', ')}, got ${field}`);
  }
  if (!Number.isSafeInteger(amount)) throw new RangeError(`amount must be an integer, got ${amount}`);
}

export function assertValidCounters(counters: UsageCounters): void {
  for (const [name, value] of Object.entries(counters)) {
    if (!(Number.isSafeInteger(value) && value >= 0)) {
      throw new RangeError(`counter ${name} must be a non-negative integer, got ${value}`);
    }
  }
}
