import type Redis from 'ioredis';
import { assertValidRateLimit, type RateLimitDecision, type RateLimiter } from './rate-limiter';
import { withRedisFailuresTranslated } from './redis-connection-failure';

/** The window length is part of the key so that two limits on the same key never share a count. */
export function rateLimitKey(key: string, windowMs: number): string {
  return `jumbe:rate:{${key}}:${windowMs}`;
}

// KEYS[1] counter, ARGV[1] limit, ARGV[2] window ms → {allowed, retryAfterMs}
// The window's clock is the key's TTL in Redis, so gateways with skewed clocks still agree.
// A counter without a TTL (which should not exist) gets one, rather than blocking forever.
const CONSUME_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
if count <= tonumber(ARGV[1]) then return {1, 0} end
return {0, ttl}
`;

interface RateLimitScripts {
  jumbeRateConsume(key: string, limit: string, windowMs: string): Promise<[number, number]>;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly scripts: RateLimitScripts;

  constructor(redis: Redis) {
    redis.defineCommand('jumbeRateConsume', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
    this.scripts = redis as unknown as RateLimitScripts;
  }

  async consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    assertValidRateLimit(limit, windowMs);
    const [allowed, ttl] = await withRedisFailuresTranslated('rate limit consume', () =>
      this.scripts.jumbeRateConsume(rateLimitKey(key, windowMs), String(limit), String(windowMs)),
    );
    return allowed === 1
      ? { allowed: true, retryAfterMs: 0 }
      : { allowed: false, retryAfterMs: Math.max(1, ttl) };
  }
}
