/**
 * A billing cycle is a calendar month in UTC (CONTRACT §3). `id` (YYYY-MM-01) names the cycle in
 * storage keys; `end` is exclusive and is what X-Quota-Reset announces.
 */
export interface BillingCycle {
  id: string;
  start: Date;
  end: Date;
}

export function billingCycleAt(now: Date): BillingCycle {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { id: start.toISOString().slice(0, 10), start, end };
}
