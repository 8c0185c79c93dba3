export interface RateLimitDecision {
  allowed: boolean;
  /** 0 when allowed; otherwise how long until the current window ends (the Retry-After). */
  retryAfterMs: number;
}

/**
 * Fixed-window request rate limit shared by every gateway (CONTRACT §3, 429 `rate_limited`).
 * A window opens with the first request for a key and lasts `windowMs`; at most `limit` requests
 * pass in it. Refused requests count too, which does not change who passes in a fixed window.
 */
export interface RateLimiter {
  consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}

export function assertValidRateLimit(limit: number, windowMs: number): void {
  if (!(Number.isSafeInteger(limit) && limit >= 0)) {
    throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  }
  if (!(Number.isSafeInteger(windowMs) && windowMs > 0)) {
    throw new RangeError(`windowMs must be a positive integer, got ${windowMs}`);
  }
}
