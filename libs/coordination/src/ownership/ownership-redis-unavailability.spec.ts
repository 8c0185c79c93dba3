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
      const operations: Array<[string, () => Promise<unknown>]> = [
        ['acquire', () => leases.acquire(1, 'worker-a', 1_000)],
        ['renew', () => leases.renew(1, 'worker-a', 1, 1_000)],
        ['release', () => leases.release(1, 'worker-a', 1)],
        ['holder', () => leases.holder(1)],
        ['heartbeat', () => registry.heartbeat('worker-a', 1_000)],
        ['leave', () => registry.leave('worker-a')],
        ['liveWorkers', () => registry.liveWorkers()],
      ];
      await delay(300); // let it fail to connect (and start backing off) first
      for (const [name, operation] of operations) {
        const started = Date.now();
        const error = await operation().then(
          () => new Error(`${name} unexpectedly succeeded`),
          (failure: unknown) => failure,
        );
        expect([name, error]).toEqual([name, expect.any(CoordinationUnavailableError)]);
        expect(Date.now() - started).toBeLessThan(1_000);
      }
    } finally {
      await closeRedisClient(redis);
    }
  });
});
