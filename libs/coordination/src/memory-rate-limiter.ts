import { assertValidRateLimit, type RateLimitDecision, type RateLimiter } from './rate-limiter';

interface Window {
  count: number;
  endsAt: number;
}

/** How often ended windows are swept, so keys that stop sending do not stay in memory forever. */
const SWEEP_INTERVAL_MS = 60_000;

/** The all-in-one twin of RedisRateLimiter, with the same window semantics. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();
  private nextSweepAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.nextSweepAt = now() + SWEEP_INTERVAL_MS;
  }

  async consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    assertValidRateLimit(limit, windowMs);
    const now = this.now();
    this.sweep(now);
    const windowKey = `${key}\u0000${windowMs}`;
    let window = this.windows.get(windowKey);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(windowKey, window);
    }
    window.count += 1;
    return window.count <= limit
      ? { allowed: true, retryAfterMs: 0 }
      : { allowed: false, retryAfterMs: Math.max(1, window.endsAt - now) };
  }

  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + SWEEP_INTERVAL_MS;
    for (const [key, window] of this.windows) {
      if (window.endsAt <= now) this.windows.delete(key);
    }
  }
}
