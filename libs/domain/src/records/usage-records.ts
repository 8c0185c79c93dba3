import type { UsageCounters } from '../usage-counters';

/** One account's counters for one billing cycle, as they are saved. */
export interface UsageSnapshot {
  accountId: string;
  /** First day of the billing cycle, `YYYY-MM-DD` (`billingCycleAt(now).id`). */
  periodStart: string;
  counters: UsageCounters;
}

/** Hits one gateway counted for an account on one UTC day since its last flush. */
export interface DailyHits {
  accountId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  apiHits: number;
}
