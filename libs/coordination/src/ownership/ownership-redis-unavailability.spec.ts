import { closedPort, delay } from '@jumbe/testing';
import { CoordinationUnavailableError } from '../coordination-unavailable-error';
import { closeRedisClient } from '../close-redis-client';
import { createRedisClient } from '../redis-client';
import { RedisShardLeaseStore } from './redis-shard-lease-store';
import { RedisWorkerRegistry } from './redis-worker-registry';

describe('ownership stores on a Redis client pointed at a closed port', () => {
  it('fail every operation fast with CoordinationUnavailableError', async () => {
    const redis = createRedisClient(`redis://127.0.0.1:${await closedPort()}`, 'jumbe-test-ownership-closed');
    try {
      const leases = new RedisShardLeaseStore(redis);
      const registry = new RedisWorkerRegistry(redis);
      // Named as the log line says what failed: "Redis unavailable during shard lease renew: …".
      const operations: Array<[string, () => Promise<unknown>]> = [
        ['shard lease acquire', () => leases.acquire(1, 'worker-a', 1_000)],
        ['shard lease renew', () => leases.renew(1, 'worker-a', 1, 1_000)],
        ['shard lease renew', () => leases.renewAll('worker-a', [{ shard: 1, token: 1 }], 1_000)],
        ['shard lease release', () => leases.release(1, 'worker-a', 1)],
        ['shard lease holder', () => leases.holder(1)],
        ['worker heartbeat', () => registry.heartbeat('worker-a', 1_000)],
        ['worker leave', () => registry.leave('worker-a')],
        ['live workers', () => registry.liveWorkers()],
      ];
      await delay(300); // let it fail to connect (and start backing off) first
      for (const [name, operation] of operations) {
        const started = Date.now();
        const error = await operation().then(
          () => new Error(`${name} unexpectedly succeeded`),
          (failure: unknown) => failure,
        );
        expect([name, error]).toEqual([name, expect.any(CoordinationUnavailableError)]);
        expect((error as Error).message).toMatch(new RegExp(`^Redis unavailable during ${name}: `));
        expect(Date.now() - started).toBeLessThan(1_000);
      }
    } finally {
      await closeRedisClient(redis);
    }
  });
});
