import type Redis from 'ioredis';
import { withRedisFailuresTranslated } from '../redis-connection-failure';
import { assertValidTtlMs, assertValidWorkerId } from './ownership-arguments';
import { DEFAULT_OWNERSHIP_KEY_PREFIX } from './ownership-key-prefix';
import type { WorkerRegistry } from './worker-registry';

/** One sorted set of worker ids, each scored by the time (ms, Redis' clock) its heartbeat expires. */
export function workerRegistryKey(keyPrefix: string = DEFAULT_OWNERSHIP_KEY_PREFIX): string {
  return `${keyPrefix}workers`;
}

// The scripts read the server's clock (TIME) rather than taking a timestamp from the caller, so
// that a worker whose clock runs ahead cannot keep itself (or a dead peer) alive longer, and one
// whose clock lags cannot evict live peers. Redis >= 5 replicates script effects, so a write after
// TIME is allowed.
const SERVER_NOW_MS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

// KEYS[1] registry; ARGV[1] worker, ARGV[2] ttl ms
/** Also run by the lease upkeep thread (lease-upkeep-thread.cjs), which takes it from here. */
export const WORKER_HEARTBEAT_SCRIPT = `${SERVER_NOW_MS}
redis.call('ZADD', KEYS[1], string.format('%d', now + tonumber(ARGV[2])), ARGV[1])
return 1
`;

// KEYS[1] registry → live worker ids (in expiry order). An entry expiring exactly now is dead,
// as in the in-memory twin.
const LIVE_WORKERS_SCRIPT = `${SERVER_NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', now))
return redis.call('ZRANGE', KEYS[1], 0, -1)
`;

interface WorkerRegistryScripts {
  jumbeWorkerHeartbeat(registryKey: string, workerId: string, ttlMs: string): Promise<number>;
  jumbeLiveWorkers(registryKey: string): Promise<string[]>;
}

/** WorkerRegistry shared by every worker through Redis, timed by the Redis server's clock. */
export class RedisWorkerRegistry implements WorkerRegistry {
  private readonly scripts: WorkerRegistryScripts;
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    keyPrefix: string = DEFAULT_OWNERSHIP_KEY_PREFIX,
  ) {
    redis.defineCommand('jumbeWorkerHeartbeat', { numberOfKeys: 1, lua: WORKER_HEARTBEAT_SCRIPT });
    redis.defineCommand('jumbeLiveWorkers', { numberOfKeys: 1, lua: LIVE_WORKERS_SCRIPT });
    this.scripts = redis as unknown as WorkerRegistryScripts;
    this.key = workerRegistryKey(keyPrefix);
  }

  async heartbeat(workerId: string, ttlMs: number): Promise<void> {
    assertValidWorkerId(workerId);
    assertValidTtlMs(ttlMs);
    await withRedisFailuresTranslated('worker heartbeat', () =>
      this.scripts.jumbeWorkerHeartbeat(this.key, workerId, String(ttlMs)),
    );
  }

  async leave(workerId: string): Promise<void> {
    assertValidWorkerId(workerId);
    await withRedisFailuresTranslated('worker leave', () => this.redis.zrem(this.key, workerId));
  }

  async liveWorkers(): Promise<string[]> {
    const workers = await withRedisFailuresTranslated('live workers', () =>
      this.scripts.jumbeLiveWorkers(this.key),
    );
    // Code-unit order, the same order assignShards uses.
    return workers.sort();
  }
}
