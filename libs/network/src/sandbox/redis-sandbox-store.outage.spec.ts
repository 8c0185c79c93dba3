import { randomUUID } from 'node:crypto';
import {
  closeRedisClient,
  CoordinationUnavailableError,
  createRedisClient,
  REDIS_COMMAND_TIMEOUT_MS,
  waitForRedisReady,
} from '@jumbe/coordination';
import { delay, eventually, failureOf, TcpProxy } from '@jumbe/testing';
import type { SessionRef } from '../session-ref';
import { RedisSandboxStore, SANDBOX_KEY_PREFIX } from './redis-sandbox-store';
import { outboxEntry as entry, TEST_REDIS_URL } from './test-support/sandbox-store-fixtures';

const A: SessionRef = { accountId: 'acc_1', sessionId: 'default' };

// Sends are batched (one script per batch, a send waiting while the batch before it is on its
// way): against a Redis that stops answering, a send must still fail in bounded time, not queue
// forever behind a batch that never returns.
describe('RedisSandboxStore against a Redis that stops answering', () => {
  let proxy: TcpProxy;

  beforeAll(async () => {
    proxy = await TcpProxy.inFrontOf(TEST_REDIS_URL);
  });
  afterAll(() => proxy.close());

  it('fails a send, and one queued behind it, within two command timeouts each; sends again once Redis is back', async () => {
    // Auto-pipelined, as the store's client is in production (start-infrastructure).
    const redis = createRedisClient(
      proxy.rewrite(TEST_REDIS_URL),
      'jumbe-test-sandbox-hang',
      undefined,
      undefined,
      {
        autoPipelining: true,
      },
    );
    const prefix = `${SANDBOX_KEY_PREFIX}test-${randomUUID()}:`;
    try {
      await waitForRedisReady(redis, 5_000);
      const store = new RedisSandboxStore(redis, prefix);
      await store.appendOutbox(A, entry(1));

      proxy.blackhole();
      const first = failureOf(() => store.appendOutbox(A, entry(2)));
      await delay(REDIS_COMMAND_TIMEOUT_MS / 2);
      const queued = failureOf(() => store.appendOutbox(A, entry(3)));
      for (const { error, ms } of await Promise.all([first, queued])) {
        expect(error).toBeInstanceOf(CoordinationUnavailableError);
        expect(ms).toBeLessThan(2 * REDIS_COMMAND_TIMEOUT_MS + 500);
      }

      await proxy.restore();
      await eventually(
        'a send to go through again',
        async () => {
          await store.appendOutbox(A, entry(4));
          return true;
        },
        10_000,
      );
      const [newest] = await store.outbox(A, 1);
      expect(newest).toEqual(entry(4));
    } finally {
      await proxy.restore();
      const keys = await redis.keys(`${prefix}*`).catch(() => []);
      if (keys.length > 0) await redis.del(...keys).catch(() => undefined);
      await closeRedisClient(redis);
    }
  }, 20_000);
});
