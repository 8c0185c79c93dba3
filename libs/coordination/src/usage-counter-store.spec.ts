import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { ZERO_USAGE, type UsageCounters } from '@jumbe/domain';
import { MemoryUsageCounterStore } from './memory-usage-counter-store';
import { RedisUsageCounterStore, usageCountersKey } from './redis-usage-counter-store';
import { RedisTestClients } from './test-support/redis-test-clients';
import { USAGE_COUNTERS_TTL_MS, type UsageCounterStore } from './usage-counter-store';

const CYCLE = '2099-01-01';

/** Two handles on the same counters: for Redis, two stores on two separate connections. */
interface StorePair {
  first: UsageCounterStore;
  second: UsageCounterStore;
  cleanUp(accountIds: string[]): Promise<void>;
}

const clients = new RedisTestClients();

const implementations: Array<[string, () => Promise<StorePair>]> = [
  [
    'RedisUsageCounterStore',
    async () => {
      // Auto-pipelined, as the request path's client is in production (start-infrastructure).
      const [one, two] = await Promise.all([
        clients.connect('usage-1', undefined, { autoPipelining: true }),
        clients.connect('usage-2', undefined, { autoPipelining: true }),
      ]);
      return {
        first: new RedisUsageCounterStore(one),
        second: new RedisUsageCounterStore(two),
        cleanUp: async (accountIds) => {
          if (accountIds.length > 0) await one.del(...accountIds.map((id) => usageCountersKey(id, CYCLE)));
        },
      };
    },
  ],
  [
    'MemoryUsageCounterStore',
    async () => {
      const store = new MemoryUsageCounterStore();
      return { first: store, second: store, cleanUp: async () => undefined };
    },
  ],
];

afterAll(() => clients.closeAll());

describe.each(implementations)('%s', (_name, makeStores) => {
  let stores: StorePair;
  let usedAccounts: string[];

  const newAccount = (): string => {
    const id = `acc-${randomUUID()}`;
    usedAccounts.push(id);
    return id;
  };

  beforeAll(async () => {
    stores = await makeStores();
  });
  beforeEach(() => {
    usedAccounts = [];
  });
  afterEach(() => stores.cleanUp(usedAccounts));

  it('answers null for every operation before the cycle is seeded, and creates nothing', async () => {
    const account = newAccount();
    expect(await stores.first.tryHit(account, CYCLE, 10)).toBeNull();
    expect(await stores.first.add(account, CYCLE, 'messagesSent', 1)).toBeNull();
    expect(await stores.first.read(account, CYCLE)).toBeNull();
  });

  it('reads back the seeded counters, on the other connection too', async () => {
    const account = newAccount();
    await stores.first.seed(account, CYCLE, { apiHits: 7, messagesSent: 3, sendFailures: 1 });
    expect(await stores.second.read(account, CYCLE)).toEqual({
      apiHits: 7,
      messagesSent: 3,
      sendFailures: 1,
    });
  });

  it('never overwrites with a later seed', async () => {
    const account = newAccount();
    await stores.first.seed(account, CYCLE, { apiHits: 5, messagesSent: 2, sendFailures: 0 });
    await stores.first.tryHit(account, CYCLE, 100);
    await stores.second.seed(account, CYCLE, ZERO_USAGE);
    expect(await stores.first.read(account, CYCLE)).toEqual({ apiHits: 6, messagesSent: 2, sendFailures: 0 });
  });

  it('keeps cycles apart', async () => {
    const account = newAccount();
    await stores.first.seed(account, CYCLE, ZERO_USAGE);
    expect(await stores.first.read(account, '2099-02-01')).toBeNull();
  });

  it('counts hits up to the limit, then refuses without counting', async () => {
    const account = newAccount();
    await stores.first.seed(account, CYCLE, { apiHits: 0, messagesSent: 4, sendFailures: 2 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await stores.first.tryHit(account, CYCLE, 3));
    expect(results).toEqual([
      { allowed: true, counters: { apiHits: 1, messagesSent: 4, sendFailures: 2 } },
      { allowed: true, counters: { apiHits: 2, messagesSent: 4, sendFailures: 2 } },
      { allowed: true, counters: { apiHits: 3, messagesSent: 4, sendFailures: 2 } },
      { allowed: false, counters: { apiHits: 3, messagesSent: 4, sendFailures: 2 } },
    ]);
    expect(await stores.second.read(account, CYCLE)).toEqual({
      apiHits: 3,
      messagesSent: 4,
      sendFailures: 2,
    });
  });

  it('refuses an account already over a (lowered) limit and leaves its count alone', async () => {
    const account = newAccount();
    await stores.first.seed(account, CYCLE, { apiHits: 10, messagesSent: 0, sendFailures: 0 });
    expect(await stores.first.tryHit(account, CYCLE, 5)).toEqual({
      allowed: false,
      counters: { apiHits: 10, messagesSent: 0, sendFailures: 0 },
    });
    expect(await stores.first.tryHit(account, CYCLE, 0)).toMatchObject({ allowed: false });
    expect((await stores.first.read(account, CYCLE))?.apiHits).toBe(10);
  });

  it('treats an Infinity limit as no limit', async () => {
    const account = newAccount();
    await stores.first.seed(account, CYCLE, { apiHits: 1_000_000, messagesSent: 0, sendFailures: 0 });
    expect(await stores.first.tryHit(account, CYCLE, Number.POSITIVE_INFINITY)).toMatchObject({
      allowed: true,
      counters: { apiHits: 1_000_001 },
    });
  });

  it('adds to messagesSent and sendFailures and returns all counters', async () => {
    const account = newAccount();
    await stores.first.seed(account, CYCLE, { apiHits: 2, messagesSent: 0, sendFailures: 0 });
    expect(await stores.first.add(account, CYCLE, 'messagesSent', 1)).toEqual({
      apiHits: 2,
      messagesSent: 1,
      sendFailures: 0,
    });
    expect(await stores.second.add(account, CYCLE, 'sendFailures', 3)).toEqual({
      apiHits: 2,
      messagesSent: 1,
      sendFailures: 3,
    });
  });

  it('rejects arguments that Redis would misread, in both implementations alike', async () => {
    const account = newAccount();
    await stores.first.seed(account, CYCLE, ZERO_USAGE);
    await expect(stores.first.tryHit(account, CYCLE, 1.5)).rejects.toThrow(RangeError);
    await expect(stores.first.tryHit(account, CYCLE, -1)).rejects.toThrow(RangeError);
    await expect(stores.first.add(account, CYCLE, 'apiHits' as 'messagesSent', 1)).rejects.toThrow(
      RangeError,
    );
    await expect(stores.first.add(account, CYCLE, 'messagesSent', 0.5)).rejects.toThrow(RangeError);
    await expect(stores.first.seed(newAccount(), CYCLE, { ...ZERO_USAGE, apiHits: -1 })).rejects.toThrow(
      RangeError,
    );
    expect(await stores.first.read(account, CYCLE)).toEqual(ZERO_USAGE);
  });

  it('lets exactly the remaining hits through when 200 arrive at once on two connections', async () => {
    const account = newAccount();
    await stores.first.seed(account, CYCLE, ZERO_USAGE);
    const attempts = Array.from({ length: 200 }, (_, i) =>
      (i % 2 === 0 ? stores.first : stores.second).tryHit(account, CYCLE, 50),
    );
    const results = await Promise.all(attempts);
    const allowed = results.filter((result) => result?.allowed);
    expect(allowed).toHaveLength(50);
    // Each admitted hit saw its own count: no two hits were counted as the same one.
    expect(allowed.map((result) => result?.counters.apiHits).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    expect(await stores.first.read(account, CYCLE)).toEqual({ ...ZERO_USAGE, apiHits: 50 });
  });

  it('lets exactly the remaining hits through when the account is already near its limit', async () => {
    const account = newAccount();
    await stores.first.seed(account, CYCLE, { apiHits: 47, messagesSent: 0, sendFailures: 0 });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? stores.first : stores.second).tryHit(account, CYCLE, 50),
      ),
    );
    expect(results.filter((result) => result?.allowed)).toHaveLength(3);
  });
});

describe('RedisUsageCounterStore storage layout', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await clients.connect('usage-layout');
  });

  it('keeps one hash per account and cycle, hash-tagged by account, expiring after ~40 days', async () => {
    const account = `acc-${randomUUID()}`;
    const key = `jumbe:usage:{${account}}:${CYCLE}`;
    try {
      await new RedisUsageCounterStore(redis).seed(account, CYCLE, {
        apiHits: 1,
        messagesSent: 2,
        sendFailures: 3,
      });
      expect(await redis.hgetall(key)).toEqual({ apiHits: '1', messagesSent: '2', sendFailures: '3' });
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(USAGE_COUNTERS_TTL_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(USAGE_COUNTERS_TTL_MS);
      expect(USAGE_COUNTERS_TTL_MS).toBe(40 * 24 * 3600 * 1000);
    } finally {
      await redis.del(key);
    }
  });
});

describe('MemoryUsageCounterStore expiry', () => {
  it('forgets a cycle when its TTL has passed, as Redis would', async () => {
    let now = 1_000_000;
    const store = new MemoryUsageCounterStore(() => now);
    const counters: UsageCounters = { apiHits: 3, messagesSent: 0, sendFailures: 0 };
    await store.seed('acc', CYCLE, counters);
    now += USAGE_COUNTERS_TTL_MS - 1;
    expect(await store.read('acc', CYCLE)).toEqual(counters);
    now += 1;
    expect(await store.read('acc', CYCLE)).toBeNull();
    expect(await store.tryHit('acc', CYCLE, 10)).toBeNull();
  });
});
