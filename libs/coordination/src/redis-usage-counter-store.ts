import type Redis from 'ioredis';
import type { UsageCounters } from '@jumbe/domain';
import { withRedisFailuresTranslated } from './redis-connection-failure';
import {
  assertValidCounters,
  assertValidCounterUpdate,
  assertValidHitLimit,
  USAGE_COUNTERS_TTL_MS,
  type UsageCounterField,
  type UsageCounterStore,
  type UsageHitResult,
} from './usage-counter-store';

/**
 * One hash per account and cycle. The account id is the cluster hash tag, so all of an account's
 * cycles live on one node (and a future multi-cycle script stays single-slot).
 */
export function usageCountersKey(accountId: string, cycleId: string): string {
  return `jumbe:usage:{${accountId}}:${cycleId}`;
}

// Each script checks existence first: a missing hash means "not seeded", which only PostgreSQL can
// answer, so the scripts must not create the hash as a side effect (as a bare HINCRBY would).

// KEYS[1] hash, ARGV[1] limit or 'inf' → nil | {allowed, apiHits, messagesSent, sendFailures}
const TRY_HIT_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local c = redis.call('HMGET', KEYS[1], 'apiHits', 'messagesSent', 'sendFailures')
local hits = tonumber(c[1]) or 0
local allowed = 0
if ARGV[1] == 'inf' or hits < tonumber(ARGV[1]) then
  hits = redis.call('HINCRBY', KEYS[1], 'apiHits', 1)
  allowed = 1
end
return {allowed, hits, tonumber(c[2]) or 0, tonumber(c[3]) or 0}
`;

// KEYS[1] hash, ARGV[1] field, ARGV[2] amount → nil | {apiHits, messagesSent, sendFailures}
const ADD_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
local c = redis.call('HMGET', KEYS[1], 'apiHits', 'messagesSent', 'sendFailures')
return {tonumber(c[1]) or 0, tonumber(c[2]) or 0, tonumber(c[3]) or 0}
`;

// KEYS[1] hash, ARGV[1..3] counters, ARGV[4] ttl ms → 1 if seeded, 0 if it already existed
const SEED_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'apiHits', ARGV[1], 'messagesSent', ARGV[2], 'sendFailures', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

// Prefixed names: other libs may define their own scripts on the same shared client.
interface UsageScripts {
  jumbeUsageTryHit(key: string, limit: string): Promise<[number, number, number, number] | null>;
  jumbeUsageAdd(key: string, field: string, amount: string): Promise<[number, number, number] | null>;
  jumbeUsageSeed(
    key: string,
    apiHits: string,
    messagesSent: string,
    sendFailures: string,
    ttlMs: string,
  ): Promise<number>;
}

/** UsageCounterStore shared by every process through Redis; each operation is one atomic script. */
export class RedisUsageCounterStore implements UsageCounterStore {
  private readonly scripts: UsageScripts;

  constructor(private readonly redis: Redis) {
    // defineCommand runs EVALSHA and falls back to EVAL after a Redis restart (NOSCRIPT).
    redis.defineCommand('jumbeUsageTryHit', { numberOfKeys: 1, lua: TRY_HIT_SCRIPT });
    redis.defineCommand('jumbeUsageAdd', { numberOfKeys: 1, lua: ADD_SCRIPT });
    redis.defineCommand('jumbeUsageSeed', { numberOfKeys: 1, lua: SEED_SCRIPT });
    this.scripts = redis as unknown as UsageScripts;
  }

  async tryHit(accountId: string, cycleId: string, limit: number): Promise<UsageHitResult | null> {
    assertValidHitLimit(limit);
    const reply = await withRedisFailuresTranslated('usage tryHit', () =>
      this.scripts.jumbeUsageTryHit(
        usageCountersKey(accountId, cycleId),
        Number.isFinite(limit) ? String(limit) : 'inf',
      ),
    );
    if (reply === null) return null;
    const [allowed, apiHits, messagesSent, sendFailures] = reply;
    return { allowed: allowed === 1, counters: { apiHits, messagesSent, sendFailures } };
  }

  async add(
    accountId: string,
    cycleId: string,
    field: UsageCounterField,
    amount: number,
  ): Promise<UsageCounters | null> {
    assertValidCounterUpdate(field, amount);
    const reply = await withRedisFailuresTranslated('usage add', () =>
      this.scripts.jumbeUsageAdd(usageCountersKey(accountId, cycleId), field, String(amount)),
    );
    if (reply === null) return null;
    const [apiHits, messagesSent, sendFailures] = reply;
    return { apiHits, messagesSent, sendFailures };
  }

  async seed(accountId: string, cycleId: string, counters: UsageCounters): Promise<void> {
    assertValidCounters(counters);
    await withRedisFailuresTranslated('usage seed', () =>
      this.scripts.jumbeUsageSeed(
        usageCountersKey(accountId, cycleId),
        String(counters.apiHits),
        String(counters.messagesSent),
        String(counters.sendFailures),
        String(USAGE_COUNTERS_TTL_MS),
      ),
    );
  }

  async read(accountId: string, cycleId: string): Promise<UsageCounters | null> {
    const hash = await withRedisFailuresTranslated('usage read', () =>
      this.redis.hgetall(usageCountersKey(accountId, cycleId)),
    );
    if (Object.keys(hash).length === 0) return null;
    return {
      apiHits: Number(hash['apiHits'] ?? 0),
      messagesSent: Number(hash['messagesSent'] ?? 0),
      sendFailures: Number(hash['sendFailures'] ?? 0),
    };
  }
}
