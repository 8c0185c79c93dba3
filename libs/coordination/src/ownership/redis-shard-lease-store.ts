import type Redis from 'ioredis';
import { withRedisFailuresTranslated } from '../redis-connection-failure';
import {
  assertValidFencingToken,
  assertValidShard,
  assertValidTtlMs,
  assertValidWorkerId,
} from './ownership-arguments';
import { DEFAULT_OWNERSHIP_KEY_PREFIX } from './ownership-key-prefix';
import type { HeldLease, ShardLeaseHolder, ShardLeaseStore } from './shard-lease-store';

/**
 * The lease: a hash {worker, token} with a PX expiry. The shard number is the cluster hash tag, so
 * the lease and its token counter share a slot and one script can touch both.
 */
export function shardLeaseKey(shard: number, keyPrefix: string = DEFAULT_OWNERSHIP_KEY_PREFIX): string {
  return `${keyPrefix}shard:{${shard}}:lease`;
}

/**
 * The shard's last granted fencing token. It never expires: if it did, INCR would start again at 1
 * and a new owner could get a token lower than one already written to storage.
 */
export function shardTokenKey(shard: number, keyPrefix: string = DEFAULT_OWNERSHIP_KEY_PREFIX): string {
  return `${keyPrefix}shard:{${shard}}:token`;
}

// Tokens go into the hash with %d: a Lua number passed to redis.call would be formatted as a
// float, which for large values is not the decimal string renew/release compare against.

// KEYS[1] lease, KEYS[2] token counter; ARGV[1] worker, ARGV[2] ttl ms → token | nil
const ACQUIRE_SCRIPT = `
local held = redis.call('HMGET', KEYS[1], 'worker', 'token')
if held[1] then
  if held[1] ~= ARGV[1] then return false end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(held[2])
end
local token = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'worker', ARGV[1], 'token', string.format('%d', token))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return token
`;

// KEYS[1] lease; ARGV[1] worker, ARGV[2] token, ARGV[3] ttl ms → 1 if extended, 0 if not held
/** Also run by the lease upkeep thread (lease-upkeep-thread.cjs), which takes it from here. */
export const SHARD_LEASE_RENEW_SCRIPT = `
local held = redis.call('HMGET', KEYS[1], 'worker', 'token')
if held[1] ~= ARGV[1] or held[2] ~= ARGV[2] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

// KEYS[1] lease; ARGV[1] worker, ARGV[2] token → 1 if freed, 0 if held by someone else (or free)
const RELEASE_SCRIPT = `
local held = redis.call('HMGET', KEYS[1], 'worker', 'token')
if held[1] ~= ARGV[1] or held[2] ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

// Prefixed names: other libs may define their own scripts on the same shared client.
interface ShardLeaseScripts {
  jumbeShardLeaseAcquire(
    leaseKey: string,
    tokenKey: string,
    workerId: string,
    ttlMs: string,
  ): Promise<number | null>;
  jumbeShardLeaseRenew(leaseKey: string, workerId: string, token: string, ttlMs: string): Promise<number>;
  jumbeShardLeaseRelease(leaseKey: string, workerId: string, token: string): Promise<number>;
}

interface ShardLeasePipeline {
  jumbeShardLeaseRenew(leaseKey: string, workerId: string, token: string, ttlMs: string): void;
  exec(): Promise<Array<[Error | null, unknown]> | null>;
}

/**
 * ShardLeaseStore shared by every worker through Redis. Each write is one atomic script, so
 * concurrent acquires from many connections grant a shard to exactly one of them; `holder` is a
 * single HMGET, which is atomic on its own. Expiry is Redis' own key expiry, measured by the
 * server's clock, so workers with skewed clocks agree on when a lease ends.
 */
export class RedisShardLeaseStore implements ShardLeaseStore {
  private readonly scripts: ShardLeaseScripts;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string = DEFAULT_OWNERSHIP_KEY_PREFIX,
  ) {
    // defineCommand runs EVALSHA and falls back to EVAL after a Redis restart (NOSCRIPT).
    redis.defineCommand('jumbeShardLeaseAcquire', { numberOfKeys: 2, lua: ACQUIRE_SCRIPT });
    redis.defineCommand('jumbeShardLeaseRenew', { numberOfKeys: 1, lua: SHARD_LEASE_RENEW_SCRIPT });
    redis.defineCommand('jumbeShardLeaseRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    this.scripts = redis as unknown as ShardLeaseScripts;
  }

  async acquire(shard: number, workerId: string, ttlMs: number): Promise<number | null> {
    assertValidShard(shard);
    assertValidWorkerId(workerId);
    assertValidTtlMs(ttlMs);
    return withRedisFailuresTranslated('shard lease acquire', () =>
      this.scripts.jumbeShardLeaseAcquire(
        shardLeaseKey(shard, this.keyPrefix),
        shardTokenKey(shard, this.keyPrefix),
        workerId,
        String(ttlMs),
      ),
    );
  }

  async renew(shard: number, workerId: string, token: number, ttlMs: number): Promise<boolean> {
    assertValidShard(shard);
    assertValidWorkerId(workerId);
    assertValidFencingToken(token);
    assertValidTtlMs(ttlMs);
    const renewed = await withRedisFailuresTranslated('shard lease renew', () =>
      this.scripts.jumbeShardLeaseRenew(
        shardLeaseKey(shard, this.keyPrefix),
        workerId,
        String(token),
        String(ttlMs),
      ),
    );
    return renewed === 1;
  }

  async renewAll(workerId: string, held: readonly HeldLease[], ttlMs: number): Promise<number[]> {
    assertValidWorkerId(workerId);
    assertValidTtlMs(ttlMs);
    if (held.length === 0) return [];
    for (const lease of held) {
      assertValidShard(lease.shard);
      assertValidFencingToken(lease.token);
    }
    // A pipeline, not one script over every key: the leases live in different cluster slots.
    const replies = await withRedisFailuresTranslated('shard lease renew', async () => {
      const pipeline = this.redis.pipeline() as unknown as ShardLeasePipeline;
      for (const { shard, token } of held) {
        pipeline.jumbeShardLeaseRenew(
          shardLeaseKey(shard, this.keyPrefix),
          workerId,
          String(token),
          String(ttlMs),
        );
      }
      const results = await pipeline.exec();
      if (!results) throw new Error('Connection is closed');
      // A pipeline answers a lost connection per command rather than by rejecting: failed here, it
      // is translated (CoordinationUnavailableError) as every other operation's failure is.
      for (const [error] of results) if (error) throw error;
      return results;
    });
    return held.filter((_, i) => replies[i]?.[1] === 1).map((lease) => lease.shard);
  }

  async release(shard: number, workerId: string, token: number): Promise<void> {
    assertValidShard(shard);
    assertValidWorkerId(workerId);
    assertValidFencingToken(token);
    await withRedisFailuresTranslated('shard lease release', () =>
      this.scripts.jumbeShardLeaseRelease(shardLeaseKey(shard, this.keyPrefix), workerId, String(token)),
    );
  }

  async holder(shard: number): Promise<ShardLeaseHolder | null> {
    assertValidShard(shard);
    const [workerId, token] = await withRedisFailuresTranslated('shard lease holder', () =>
      this.redis.hmget(shardLeaseKey(shard, this.keyPrefix), 'worker', 'token'),
    );
    if (workerId === null || workerId === undefined || token === null || token === undefined) return null;
    return { workerId, token: Number(token) };
  }
}
