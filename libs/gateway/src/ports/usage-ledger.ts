import type { DailyHits, UsageCounters, UsageSnapshot } from '@jumbe/domain';

/** The durable copy of each account's usage counters, written behind the live ones. */
export abstract class UsageLedger {
  /** The cycle's counters; zeros when nothing was recorded yet. */
  abstract load(accountId: string, periodStart: string): Promise<UsageCounters>;
  /** Raises each row's counters to at least the given values (never lowers one). */
  abstract saveManyAtLeast(rows: readonly UsageSnapshot[]): Promise<void>;
}

/** API hits per account and UTC day, for the usage chart (never used for the cap). */
export abstract class DailyUsageLedger {
  abstract addHits(rows: readonly DailyHits[]): Promise<void>;
  /** Hits per day (`YYYY-MM-DD`) between two days, inclusive. */
  abstract hitsBetween(accountId: string, from: string, to: string): Promise<Map<string, number>>;
}
