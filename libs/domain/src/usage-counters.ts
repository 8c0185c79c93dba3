/** The per-account counters of one billing cycle (CONTRACT §3). */
export interface UsageCounters {
  apiHits: number;
  messagesSent: number;
  sendFailures: number;
}

export const ZERO_USAGE: Readonly<UsageCounters> = Object.freeze({
  apiHits: 0,
  messagesSent: 0,
  sendFailures: 0,
});
