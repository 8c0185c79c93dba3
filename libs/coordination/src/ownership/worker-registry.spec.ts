import { RedisTestClients } from '../test-support/redis-test-clients';
import { MemoryWorkerRegistry } from './memory-worker-registry';
import { RedisWorkerRegistry, workerRegistryKey } from './redis-worker-registry';
import { RedisTestKeySpaces } from './test-support/redis-test-key-spaces';
import { granted, pastExpiry, SHORTEST_TTL_MS, stillLive, withShortTtl } from './test-support/short-ttl';
import type { WorkerRegistry } from './worker-registry';

const clients = new RedisTestClients();
const keySpaces = new RedisTestKeySpaces();

afterAll(async () => {
  try {
    await keySpaces.deleteAll(await clients.connect('registry-cleanup'));
  } finally {
    await clients.closeAll();
  }
});

const LONG_TTL_MS = 10_000;

/** Two handles on one fresh, empty registry: for Redis, on two connections under a new prefix. */
type RegistryFactory = () => Promise<[WorkerRegistry, WorkerRegistry]>;

const implementations: Array<[string, RegistryFactory]> = [
  [
    'RedisWorkerRegistry',
    async () => {
      const prefix = keySpaces.next();
      const [one, two] = await Promise.all([clients.connect('registry-1'), clients.connect('registry-2')]);
      return [new RedisWorkerRegistry(one, prefix), new RedisWorkerRegistry(two, prefix)];
    },
  ],
  [
    'MemoryWorkerRegistry',
    async () => {
      const registry = new MemoryWorkerRegistry();
      return [registry, registry];
    },
  ],
];

describe.each(implementations)('%s', (_name, makeRegistries) => {
  let first: WorkerRegistry;
  let second: WorkerRegistry;

  beforeEach(async () => {
    [first, second] = await makeRegistries();
  });

  it('starts empty', async () => {
    expect(await first.liveWorkers()).toEqual([]);
  });

  it('lists heartbeating workers once each, sorted, on every connection', async () => {
    await first.heartbeat('worker-b', LONG_TTL_MS);
    await second.heartbeat('worker-a', LONG_TTL_MS);
    await first.heartbeat('worker-c', LONG_TTL_MS);
    await second.heartbeat('worker-b', LONG_TTL_MS);
    expect(await second.liveWorkers()).toEqual(['worker-a', 'worker-b', 'worker-c']);
    expect(await first.liveWorkers()).toEqual(['worker-a', 'worker-b', 'worker-c']);
  });

  it('drops a worker whose last heartbeat is older than its own TTL, and takes it back on the next', () =>
    withShortTtl(async (ttlMs) => {
      const [one, two] = await makeRegistries();
      const beat = await granted(() => one.heartbeat('worker-short', ttlMs));
      await one.heartbeat('worker-long', LONG_TTL_MS);
      const live = await two.liveWorkers();
      stillLive(beat, ttlMs);
      expect(live).toEqual(['worker-long', 'worker-short']);
      await pastExpiry(beat, ttlMs);
      expect(await two.liveWorkers()).toEqual(['worker-long']);
      await one.heartbeat('worker-short', LONG_TTL_MS);
      expect(await two.liveWorkers()).toEqual(['worker-long', 'worker-short']);
    }));

  it('keeps a worker live as long as it heartbeats within its TTL', async () => {
    const beat = await granted(() => first.heartbeat('worker-a', SHORTEST_TTL_MS));
    await first.heartbeat('worker-a', LONG_TTL_MS);
    await pastExpiry(beat, SHORTEST_TTL_MS);
    expect(await second.liveWorkers()).toEqual(['worker-a']);
  });

  it('removes a worker at once when it leaves, and ignores leaving twice', async () => {
    await first.heartbeat('worker-a', LONG_TTL_MS);
    await first.heartbeat('worker-b', LONG_TTL_MS);
    await second.leave('worker-a');
    await second.leave('worker-a');
    await second.leave('worker-never-seen');
    expect(await first.liveWorkers()).toEqual(['worker-b']);
  });

  it('rejects arguments Redis would misread, in both implementations alike', async () => {
    await expect(first.heartbeat('', LONG_TTL_MS)).rejects.toThrow(RangeError);
    await expect(first.heartbeat('worker-a', 0)).rejects.toThrow(RangeError);
    await expect(first.heartbeat('worker-a', 1.5)).rejects.toThrow(RangeError);
    await expect(first.leave('')).rejects.toThrow(RangeError);
    expect(await first.liveWorkers()).toEqual([]);
  });
});

describe('RedisWorkerRegistry storage layout', () => {
  it('scores each worker by its expiry on the Redis clock, and prunes expired entries', async () => {
    const redis = await clients.connect('registry-layout');
    const prefix = keySpaces.next();
    const registry = new RedisWorkerRegistry(redis, prefix);
    const key = workerRegistryKey(prefix);
    expect(key).toBe(`${prefix}workers`);
    expect(workerRegistryKey()).toBe('jumbe:workers');

    await registry.heartbeat('worker-long', LONG_TTL_MS);
    const beat = await granted(() => registry.heartbeat('worker-short', SHORTEST_TTL_MS));
    const [seconds, micros] = await redis.time();
    const serverNowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const score = Number(await redis.zscore(key, 'worker-long'));
    expect(score).toBeGreaterThan(serverNowMs + LONG_TTL_MS - 1_000);
    expect(score).toBeLessThanOrEqual(serverNowMs + LONG_TTL_MS);

    await pastExpiry(beat, SHORTEST_TTL_MS);
    expect(await redis.zscore(key, 'worker-short')).not.toBeNull(); // still stored until someone looks
    expect(await registry.liveWorkers()).toEqual(['worker-long']);
    expect(await redis.zscore(key, 'worker-short')).toBeNull();
  });
});

describe('MemoryWorkerRegistry expiry', () => {
  it('drops a worker exactly when its TTL has passed', async () => {
    let now = 5_000;
    const registry = new MemoryWorkerRegistry(() => now);
    await registry.heartbeat('worker-a', 100);
    now += 99;
    expect(await registry.liveWorkers()).toEqual(['worker-a']);
    now += 1;
    expect(await registry.liveWorkers()).toEqual([]);
  });
});
