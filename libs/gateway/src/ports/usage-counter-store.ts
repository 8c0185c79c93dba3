import type { UsageCounters } from '@jumbe/domain';

/**
 * The live usage counters every gateway counts into, atomic under concurrency (UsageCounterStore
 * of @jumbe/coordination satisfies it). Each method answers null while the cycle's counters are
 * not in the store yet: the meter seeds them from the ledger and tries again.
 */
export interface UsageCounterStore {
  /** Counts one API hit unless the cycle's apiHits already reached `limit` (then `allowed` is false). */
  tryHit(
    accountId: string,
    cycleId: string,
    limit: number,
  ): Promise<{ allowed: boolean; counters: UsageCounters } | null>;
  add(
    accountId: string,
    cycleId: string,
    field: 'messagesSent' | 'sendFailures',
    amount: number,
  ): Promise<UsageCounters | null>;
  /** Stores the counters only if the cycle has none yet. */
  seed(accountId: string, cycleId: string, counters: UsageCounters): Promise<void>;
  read(accountId: string, cycleId: string): Promise<UsageCounters | null>;
}
