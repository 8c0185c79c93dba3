/** Whether a request fits its window, and if not for how long (the Retry-After). */
export interface RateLimitDecision {
  allowed: boolean;
  /** 0 when allowed; otherwise how long until the current window ends. */
  retryAfterMs: number;
}

/**
 * Fixed-window rate limits shared by every gateway (CONTRACT §3, 429 `rate_limited`):
 * RateLimiter of @jumbe/coordination satisfies it.
 */
export interface RateLimiter {
  consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}
