import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { MemoryRateLimiter } from './memory-rate-limiter';
import type { RateLimiter } from './rate-limiter';
import { RedisRateLimiter, rateLimitKey } from './redis-rate-limiter';
import { delay, RedisTestClients } from './test-support/redis-test-clients';

const clients = new RedisTestClients();
afterAll(() => clients.closeAll());

/** Two handles on the same limits: for Redis, two limiters on separate connections. */
interface LimiterPair {
  first: RateLimiter;
  second: RateLimiter;
  cleanUp(keys: Array<[string, number]>): Promise<void>;
}

const implementations: Array<[string, () => Promise<LimiterPair>]> = [
  [
    'RedisRateLimiter',
    async () => {
      const [one, two]: Redis[] = await Promise.all([clients.connect('rate-1'), clients.connect('rate-2')]);
      return {
        first: new RedisRateLimiter(one),
        second: new RedisRateLimiter(two),
        cleanUp: async (keys) => {
          if (keys.length > 0) await one.del(...keys.map(([key, windowMs]) => rateLimitKey(key, windowMs)));
        },
      };
    },
  ],
  [
    'MemoryRateLimiter',
    async () => {
      const limiter = new MemoryRateLimiter();
      return { first: limiter, second: limiter, cleanUp: async () => undefined };
    },
  ],
];

describe.each(implementations)('%s', (_name, makeLimiters) => {
  let limiters: LimiterPair;
  let used: Array<[string, number]>;
  const newKey = (windowMs: number): string => {
    const key = `key-${randomUUID()}`;
    used.push([key, windowMs]);
    return key;
  };

  beforeAll(async () => {
    limiters = await makeLimiters();
  });
  beforeEach(() => {
    used = [];
  });
  afterEach(() => limiters.cleanUp(used));

  it('lets `limit` requests through per window, then tells how long to wait, then opens a new window', async () => {
    const key = newKey(400);
    const decisions = [];
    // The window opens somewhere inside the first call and is judged somewhere inside the fourth:
    // the time between the first answer and the fourth question is what has surely passed.
    let firstAnswered = 0;
    let fourthAsked = 0;
    for (let i = 0; i < 4; i++) {
      if (i === 3) fourthAsked = Date.now();
      decisions.push(await limiters.first.consume(key, 3, 400));
      if (i === 0) firstAnswered = Date.now();
    }
    expect(decisions.slice(0, 3)).toEqual([
      { allowed: true, retryAfterMs: 0 },
      { allowed: true, retryAfterMs: 0 },
      { allowed: true, retryAfterMs: 0 },
    ]);
    const refused = decisions[3];
    expect(refused?.allowed).toBe(false);
    expect(refused?.retryAfterMs).toBeGreaterThan(0);
    expect(refused?.retryAfterMs).toBeLessThanOrEqual(400 - (fourthAsked - firstAnswered) + 5);
    expect(await limiters.second.consume(key, 3, 400)).toMatchObject({ allowed: false });

    await delay((refused?.retryAfterMs ?? 0) + 30);
    expect(await limiters.second.consume(key, 3, 400)).toEqual({ allowed: true, retryAfterMs: 0 });
  });

  it('keeps keys, and windows of different lengths, apart', async () => {
    const [key, other] = [newKey(10_000), newKey(10_000)];
    used.push([key, 20_000]);
    expect(await limiters.first.consume(key, 1, 10_000)).toMatchObject({ allowed: true });
    expect(await limiters.first.consume(key, 1, 10_000)).toMatchObject({ allowed: false });
    expect(await limiters.first.consume(other, 1, 10_000)).toMatchObject({ allowed: true });
    expect(await limiters.first.consume(key, 1, 20_000)).toMatchObject({ allowed: true });
  });

  it('refuses everything with a limit of 0', async () => {
    expect(await limiters.first.consume(newKey(1_000), 0, 1_000)).toMatchObject({ allowed: false });
  });

  it('lets exactly `limit` through when 100 requests arrive at once on two connections', async () => {
    const key = newKey(10_000);
    const decisions = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 === 0 ? limiters.first : limiters.second).consume(key, 10, 10_000),
      ),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
  });

  it('rejects limits and windows it cannot honour', async () => {
    await expect(limiters.first.consume(newKey(1_000), -1, 1_000)).rejects.toThrow(RangeError);
    await expect(limiters.first.consume(newKey(1_000), 1.5, 1_000)).rejects.toThrow(RangeError);
    await expect(limiters.first.consume(newKey(0), 1, 0)).rejects.toThrow(RangeError);
  });
});

describe('MemoryRateLimiter with a controlled clock', () => {
  it('reports the exact time left in the window and forgets ended windows', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now);
    await limiter.consume('k', 1, 1_000);
    now = 250;
    expect(await limiter.consume('k', 1, 1_000)).toEqual({ allowed: false, retryAfterMs: 750 });
    now = 999;
    expect(await limiter.consume('k', 1, 1_000)).toEqual({ allowed: false, retryAfterMs: 1 });
    now = 1_000;
    expect(await limiter.consume('k', 1, 1_000)).toEqual({ allowed: true, retryAfterMs: 0 });
  });

  // An all-in-one gateway limits per key (API key, IP): keys that stop sending must not stay in
  // memory forever, and the sweep walks every window, so it runs once a minute, not per request.
  it('drops the ended windows of keys that stopped sending once a minute, and keeps live ones', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now);
    const windowsHeld = () => (limiter as unknown as { windows: Map<string, unknown> }).windows.size;
    await limiter.consume('gone-early', 5, 1_000);
    await limiter.consume('live', 1, 120_000);
    now = 30_000;
    await limiter.consume('live', 1, 120_000);
    expect(windowsHeld()).toBe(2); // gone-early ended, but the minute is not over
    now = 59_000;
    await limiter.consume('gone-on-time', 5, 1_000); // ends exactly when the sweep comes

    now = 60_000;
    await limiter.consume('newcomer', 5, 1_000);
    expect(windowsHeld()).toBe(2); // live and newcomer
    now = 100_000;
    // The live window kept its count; newcomer's has ended, but the next sweep is a minute away.
    expect(await limiter.consume('live', 1, 120_000)).toEqual({ allowed: false, retryAfterMs: 20_000 });
    expect(windowsHeld()).toBe(2);

    now = 120_000;
    expect(await limiter.consume('live', 1, 120_000)).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(windowsHeld()).toBe(1); // live's new window
  });
});

describe('RedisRateLimiter storage', () => {
  it('keeps one expiring counter per key and window, hash-tagged by key', async () => {
    const redis = await clients.connect('rate-layout');
    const key = `key-${randomUUID()}`;
    try {
      await new RedisRateLimiter(redis).consume(key, 5, 60_000);
      expect(await redis.get(`jumbe:rate:{${key}}:60000`)).toBe('1');
      const ttl = await redis.pttl(`jumbe:rate:{${key}}:60000`);
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      await redis.del(rateLimitKey(key, 60_000));
    }
  });
});
