import { ApiError } from '@jumbe/contracts';
import type { RateLimiter } from '../ports/rate-limiter';
import { orUnavailable } from '../http/dependency-failure';

/**
 * Counts one use of `bucket` against `limit` a minute (shared by every gateway through the rate
 * limiter); 429 `rate_limited` with Retry-After beyond, naming `what` is limited.
 */
export async function withinPerMinute(
  rateLimiter: RateLimiter,
  bucket: string,
  limit: number,
  what: string,
): Promise<void> {
  const result = await orUnavailable('coordination store', () => rateLimiter.consume(bucket, limit, 60_000));
  if (!result.allowed) {
    const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
    throw new ApiError(
      'rate_limited',
      `Too many ${what}: at most ${limit} a minute. Retry in ${seconds} s.`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  }
}
