import type Redis from 'ioredis';
import { RedisTestClients } from '../test-support/redis-test-clients';
import { MemoryShardLeaseStore } from './memory-shard-lease-store';
import { RedisShardLeaseStore, shardLeaseKey, shardTokenKey } from './redis-shard-lease-store';
import type { ShardLeaseStore } from './shard-lease-store';
import { RedisTestKeySpaces } from './test-support/redis-test-key-spaces';
import { granted, pastExpiry, SHORTEST_TTL_MS, stillLive, withShortTtl } from './test-support/short-ttl';

const clients = new RedisTestClients();
const keySpaces = new RedisTestKeySpaces();

afterAll(async () => {
  try {
    await keySpaces.deleteAll(await clients.connect('lease-cleanup'));
  } finally {
    await clients.closeAll();
  }
});

const LONG_TTL_MS = 10_000;

/**
 * `count` handles on one fresh, empty set of leases: for Redis, each on its own connection (as
 * separate workers would be) under a key prefix no other test uses; in memory, one shared store.
 */
type LeaseStoresFactory = (count: number) => Promise<ShardLeaseStore[]>;

const connections: Redis[] = [];
async function redisConnections(count: number): Promise<Redis[]> {
  while (connections.length < count) connections.push(await clients.connect(`lease-${connections.length}`));
  return connections.slice(0, count);
}

const implementations: Array<[string, LeaseStoresFactory]> = [
  [
    'RedisShardLeaseStore',
    async (count) => {
      const prefix = keySpaces.next();
      return (await redisConnections(count)).map((redis) => new RedisShardLeaseStore(redis, prefix));
    },
  ],
  [
    'MemoryShardLeaseStore',
    async (count) => {
      const store = new MemoryShardLeaseStore();
      return Array.from({ length: count }, () => store);
    },
  ],
];

describe.each(implementations)('%s', (_name, makeStores) => {
  let a: ShardLeaseStore;
  let b: ShardLeaseStore;
  const shard = 7;

  beforeEach(async () => {
    [a, b] = (await makeStores(2)) as [ShardLeaseStore, ShardLeaseStore];
  });

  it('renews many leases in one call and reports only those still held', () =>
    withShortTtl(async (ttlMs) => {
      const [a, b] = (await makeStores(2)) as [ShardLeaseStore, ShardLeaseStore];
      const mine = [1, 2, 3];
      const grant = await granted(() => Promise.all(mine.map((s) => a.acquire(s, 'worker-a', ttlMs))));
      const tokens = grant.value as number[];
      // Shard 2 is lost behind a's back: released, then taken by b.
      await a.release(2, 'worker-a', tokens[1]!);
      expect(await b.acquire(2, 'worker-b', LONG_TTL_MS)).not.toBeNull();
      const held = mine.map((s, i) => ({ shard: s, token: tokens[i]! }));

      const renewed = await a.renewAll('worker-a', held, LONG_TTL_MS);
      stillLive(grant, ttlMs);
      expect(renewed).toEqual([1, 3]);
      await pastExpiry(grant, ttlMs); // Past the first TTL: only the renewal keeps 1 and 3.
      expect(await a.holder(1)).toEqual({ workerId: 'worker-a', token: tokens[0] });
      expect(await a.holder(2)).toMatchObject({ workerId: 'worker-b' });
      expect(await a.holder(3)).toEqual({ workerId: 'worker-a', token: tokens[2] });
      expect(await a.renewAll('worker-a', [], LONG_TTL_MS)).toEqual([]);
    }));

  it('grants a free shard with a positive token and reports the holder on every connection', async () => {
    expect(await b.holder(shard)).toBeNull();
    const token = await a.acquire(shard, 'worker-a', LONG_TTL_MS);
    expect(token).toEqual(expect.any(Number));
    expect(token).toBeGreaterThan(0);
    expect(await b.holder(shard)).toEqual({ workerId: 'worker-a', token });
  });

  it('refuses a held shard to another worker', async () => {
    const token = await a.acquire(shard, 'worker-a', LONG_TTL_MS);
    expect(await b.acquire(shard, 'worker-b', LONG_TTL_MS)).toBeNull();
    expect(await b.holder(shard)).toEqual({ workerId: 'worker-a', token });
  });

  it('grants a shard to exactly one of 20 workers acquiring it at once', async () => {
    const stores = await makeStores(20);
    const tokens = await Promise.all(
      stores.map((store, i) => store.acquire(shard, `worker-${i}`, LONG_TTL_MS)),
    );
    const winners = tokens.flatMap((token, i) =>
      token === null ? [] : [{ workerId: `worker-${i}`, token }],
    );
    expect(winners).toHaveLength(1);
    expect(await stores[19]?.holder(shard)).toEqual(winners[0]);
  });

  it('lets the holder acquire again: same token, lease extended', () =>
    withShortTtl(async (ttlMs) => {
      const [a, b] = (await makeStores(2)) as [ShardLeaseStore, ShardLeaseStore];
      const grant = await granted(() => a.acquire(shard, 'worker-a', ttlMs));
      const again = await b.acquire(shard, 'worker-a', LONG_TTL_MS);
      stillLive(grant, ttlMs);
      expect(again).toBe(grant.value);
      await pastExpiry(grant, ttlMs);
      expect(await b.holder(shard)).toEqual({ workerId: 'worker-a', token: grant.value });
    }));

  it('keeps shards apart', async () => {
    const first = await a.acquire(shard, 'worker-a', LONG_TTL_MS);
    const second = await b.acquire(shard + 1, 'worker-b', LONG_TTL_MS);
    expect([first, second]).toEqual([expect.any(Number), expect.any(Number)]);
    expect(await a.holder(shard + 1)).toEqual({ workerId: 'worker-b', token: second });
  });

  it('issues strictly increasing tokens across owners, never reusing one after a release', async () => {
    const tokens: number[] = [];
    for (const [store, workerId] of [
      [a, 'worker-a'],
      [b, 'worker-b'],
      [a, 'worker-a'],
      [a, 'worker-a'],
    ] as const) {
      const token = await store.acquire(shard, workerId, LONG_TTL_MS);
      expect(token).not.toBeNull();
      tokens.push(token as number);
      await store.release(shard, workerId, token as number);
      expect(await a.holder(shard)).toBeNull();
    }
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1] as number);
  });

  it('lets another worker take over an expired lease, with a higher token', () =>
    withShortTtl(async (ttlMs) => {
      const [a, b] = (await makeStores(2)) as [ShardLeaseStore, ShardLeaseStore];
      const grant = await granted(() => a.acquire(shard, 'worker-a', ttlMs));
      const refused = await b.acquire(shard, 'worker-b', LONG_TTL_MS);
      stillLive(grant, ttlMs);
      expect(refused).toBeNull();
      await pastExpiry(grant, ttlMs);
      expect(await a.holder(shard)).toBeNull();
      const second = await b.acquire(shard, 'worker-b', LONG_TTL_MS);
      expect(second).toBeGreaterThan(grant.value as number);
      expect(await a.holder(shard)).toEqual({ workerId: 'worker-b', token: second });
    }));

  it('renews only for the holder with its token, and extends the lease', () =>
    withShortTtl(async (ttlMs) => {
      const [a, b] = (await makeStores(2)) as [ShardLeaseStore, ShardLeaseStore];
      const grant = await granted(() => a.acquire(shard, 'worker-a', ttlMs));
      const token = grant.value as number;
      const byOther = await b.renew(shard, 'worker-b', token, LONG_TTL_MS);
      const withOtherToken = await a.renew(shard, 'worker-a', token + 1, LONG_TTL_MS);
      const byHolder = await a.renew(shard, 'worker-a', token, LONG_TTL_MS);
      stillLive(grant, ttlMs);
      expect([byOther, withOtherToken, byHolder]).toEqual([false, false, true]);
      await pastExpiry(grant, ttlMs);
      expect(await b.holder(shard)).toEqual({ workerId: 'worker-a', token });
    }));

  it('refuses to renew after a takeover, and the stale holder cannot release the new lease', async () => {
    const grant = await granted(() => a.acquire(shard, 'worker-a', SHORTEST_TTL_MS));
    const old = grant.value as number;
    await pastExpiry(grant, SHORTEST_TTL_MS);
    const current = (await b.acquire(shard, 'worker-b', LONG_TTL_MS)) as number;
    expect(await a.renew(shard, 'worker-a', old, LONG_TTL_MS)).toBe(false);
    await a.release(shard, 'worker-a', old);
    expect(await a.holder(shard)).toEqual({ workerId: 'worker-b', token: current });
    expect(await b.renew(shard, 'worker-b', current, LONG_TTL_MS)).toBe(true);
  });

  it('refuses to renew an expired lease and does not bring it back', async () => {
    const grant = await granted(() => a.acquire(shard, 'worker-a', SHORTEST_TTL_MS));
    await pastExpiry(grant, SHORTEST_TTL_MS);
    expect(await a.renew(shard, 'worker-a', grant.value as number, LONG_TTL_MS)).toBe(false);
    expect(await b.holder(shard)).toBeNull();
  });

  it('ignores a release by another worker or with another token', async () => {
    const token = (await a.acquire(shard, 'worker-a', LONG_TTL_MS)) as number;
    await b.release(shard, 'worker-b', token);
    await b.release(shard, 'worker-a', token + 1);
    await b.release(shard + 1, 'worker-a', token);
    expect(await a.holder(shard)).toEqual({ workerId: 'worker-a', token });
    expect(await b.acquire(shard, 'worker-b', LONG_TTL_MS)).toBeNull();
  });

  it('frees the shard at once on release by the holder', async () => {
    const token = (await a.acquire(shard, 'worker-a', LONG_TTL_MS)) as number;
    await a.release(shard, 'worker-a', token);
    expect(await b.holder(shard)).toBeNull();
    expect(await b.acquire(shard, 'worker-b', LONG_TTL_MS)).toBeGreaterThan(token);
  });

  it('rejects arguments Redis would misread, in both implementations alike', async () => {
    // Each refusal names the argument and the value, for whoever misconfigured it.
    const refused = (message: string) => expect.objectContaining({ name: 'RangeError', message });
    await expect(a.acquire(-1, 'worker-a', LONG_TTL_MS)).rejects.toEqual(
      refused('shard must be a non-negative integer, got -1'),
    );
    await expect(a.acquire(1.5, 'worker-a', LONG_TTL_MS)).rejects.toThrow(RangeError);
    await expect(a.acquire(shard, '', LONG_TTL_MS)).rejects.toEqual(
      refused('workerId must be a non-empty string'),
    );
    await expect(a.acquire(shard, 'worker-a', 0)).rejects.toEqual(
      refused('ttlMs must be a positive integer, got 0'),
    );
    await expect(a.acquire(shard, 'worker-a', 2.5)).rejects.toThrow(RangeError);
    await expect(a.renew(shard, 'worker-a', 0, LONG_TTL_MS)).rejects.toEqual(
      refused('token must be a positive integer, got 0'),
    );
    await expect(a.release(shard, 'worker-a', Number.NaN)).rejects.toThrow(RangeError);
    await expect(a.holder(-1)).rejects.toThrow(RangeError);
    await expect(a.renewAll('worker-a', [{ shard: -1, token: 1 }], LONG_TTL_MS)).rejects.toThrow(RangeError);
    await expect(a.renewAll('worker-a', [{ shard, token: 0 }], LONG_TTL_MS)).rejects.toThrow(RangeError);
    expect(await a.holder(shard)).toBeNull();
  });
});

describe('RedisShardLeaseStore storage layout', () => {
  it('keeps a hash-tagged lease with a PX expiry and a token counter that never expires', async () => {
    const redis = await clients.connect('lease-layout');
    const prefix = keySpaces.next();
    const token = await new RedisShardLeaseStore(redis, prefix).acquire(12, 'worker-a', LONG_TTL_MS);
    expect(shardLeaseKey(12, prefix)).toBe(`${prefix}shard:{12}:lease`);
    expect(shardTokenKey(12, prefix)).toBe(`${prefix}shard:{12}:token`);
    expect(shardLeaseKey(12)).toBe('jumbe:shard:{12}:lease');
    expect(await redis.hgetall(shardLeaseKey(12, prefix))).toEqual({
      worker: 'worker-a',
      token: String(token),
    });
    const ttl = await redis.pttl(shardLeaseKey(12, prefix));
    expect(ttl).toBeGreaterThan(LONG_TTL_MS - 1_000);
    expect(ttl).toBeLessThanOrEqual(LONG_TTL_MS);
    expect(await redis.get(shardTokenKey(12, prefix))).toBe(String(token));
    expect(await redis.pttl(shardTokenKey(12, prefix))).toBe(-1);
  });

  it('renews 1,024 leases in one round trip: a single write to Redis, one reply batch', async () => {
    const redis = await clients.connect('lease-round-trip');
    const store = new RedisShardLeaseStore(redis, keySpaces.next());
    const shards = Array.from({ length: 1_024 }, (_, shard) => shard);
    const held = await Promise.all(
      shards.map(async (shard) => ({ shard, token: (await store.acquire(shard, 'worker-a', LONG_TTL_MS))! })),
    );
    await store.renewAll('worker-a', held.slice(0, 1), LONG_TTL_MS); // loads the script once
    const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
    const write = stream.write.bind(stream);
    let writes = 0;
    stream.write = (...args: unknown[]) => {
      writes += 1;
      return write(...args);
    };
    try {
      expect(await store.renewAll('worker-a', held, LONG_TTL_MS)).toEqual(shards);
    } finally {
      stream.write = write;
    }
    expect(writes).toBe(1);
  });

  it('continues from the stored counter, also for tokens beyond 2^32', async () => {
    const redis = await clients.connect('lease-counter');
    const prefix = keySpaces.next();
    const store = new RedisShardLeaseStore(redis, prefix);
    await redis.set(shardTokenKey(3, prefix), String(2 ** 40));
    const token = (await store.acquire(3, 'worker-a', LONG_TTL_MS)) as number;
    expect(token).toBe(2 ** 40 + 1);
    expect(await store.renew(3, 'worker-a', token, LONG_TTL_MS)).toBe(true);
    expect(await store.holder(3)).toEqual({ workerId: 'worker-a', token });
  });
});

describe('MemoryShardLeaseStore expiry', () => {
  it('ends a lease exactly when its TTL has passed, as the Redis key would', async () => {
    let now = 1_000_000;
    const store = new MemoryShardLeaseStore(() => now);
    const token = (await store.acquire(0, 'worker-a', 100)) as number;
    now += 99;
    expect(await store.acquire(0, 'worker-b', 100)).toBeNull();
    now += 1;
    expect(await store.holder(0)).toBeNull();
    expect(await store.acquire(0, 'worker-b', 100)).toBe(token + 1);
  });
});
