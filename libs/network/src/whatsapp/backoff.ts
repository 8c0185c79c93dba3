/** How long to wait before reconnect attempt `attempt` (0 = the first retry). */
export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** 0 ≤ random() < 1; injectable so tests are deterministic. */
  random: () => number;
}

/**
 * Capped exponential backoff with jitter: the ceiling doubles per attempt up to maxMs, and the wait
 * is drawn from the upper half of it, so a fleet of sessions dropped by one outage does not come
 * back in lock-step, yet no session waits less than half the ceiling.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * policy.random());
}
