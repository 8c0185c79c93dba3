import { randomUUID } from 'node:crypto';
import { ZERO_USAGE } from '@jumbe/domain';
import { closedPort, eventually, failureOf, TcpProxy } from '@jumbe/testing';
import { CoordinationUnavailableError } from './coordination-unavailable-error';
import { createRedisClient, redisReconnectDelay } from './redis-client';
import { RedisCoordinationHealth } from './redis-coordination-health';
import { isRedisConnectionFailure, withRedisFailuresTranslated } from './redis-connection-failure';
import { RedisInvalidationBus } from './redis-invalidation-bus';
import { RedisRateLimiter } from './redis-rate-limiter';
import { RedisUsageCounterStore, usageCountersKey } from './redis-usage-counter-store';
import { closeRedisClient } from './close-redis-client';
import { RedisTestClients, TEST_REDIS_URL } from './test-support/redis-test-clients';
import { waitForRedisReady } from './wait-for-redis-ready';

const clients = new RedisTestClients();
afterAll(() => clients.closeAll());

const CYCLE = '2099-01-01';

// The request path's client is auto-pipelined (its commands wait for the turn's flush): it must
// fail as fast as the plain one.
describe.each([
  ['plain', false],
  ['auto-pipelined', true],
])('a %s Redis client pointed at a closed port', (_kind, autoPipelining) => {
  it('fails every operation fast with CoordinationUnavailableError', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const logged: string[] = [];
    const redis = createRedisClient(
      url,
      'jumbe-test-closed-port',
      (message) => logged.push(message),
      undefined,
      {
        autoPipelining,
      },
    );
    try {
      const store = new RedisUsageCounterStore(redis);
      // Each failure names its operation: the 503's log line tells the operator what could not run.
      const operations: Array<[string, () => Promise<unknown>]> = [
        ['usage tryHit', () => store.tryHit('acc', CYCLE, 10)],
        ['usage add', () => store.add('acc', CYCLE, 'messagesSent', 1)],
        ['usage seed', () => store.seed('acc', CYCLE, ZERO_USAGE)],
        ['usage read', () => store.read('acc', CYCLE)],
        ['rate limit consume', () => new RedisRateLimiter(redis).consume('key', 1, 1_000)],
        ['invalidation publish', () => new RedisInvalidationBus(redis, () => redis).publish('topic', 'x')],
        ['health check', () => new RedisCoordinationHealth(redis).check()],
      ];
      // Let it fail to connect (and start backing off) first: the refusal is logged when it has.
      await eventually('the refused connection reported', () =>
        logged.some((line) => line.includes('ECONNREFUSED')),
      );
      for (const [name, operation] of operations) {
        const { error, ms } = await failureOf(operation);
        expect([name, error]).toEqual([name, expect.any(CoordinationUnavailableError)]);
        expect((error as Error).message).toContain(`Redis unavailable during ${name}`);
        expect(ms).toBeLessThan(1_000);
      }
      // Refused connections were reported to the logger, once, not once per attempt.
      expect(logged.filter((line) => line.includes('ECONNREFUSED'))).toHaveLength(1);
    } finally {
      await closeRedisClient(redis);
    }
  });

  it('fails fast also while the very first connection attempt is under way', async () => {
    const redis = createRedisClient(
      `redis://127.0.0.1:${await closedPort()}`,
      'jumbe-test-closed-port-2',
      undefined,
      undefined,
      { autoPipelining },
    );
    try {
      const { error, ms } = await failureOf(() => new RedisUsageCounterStore(redis).tryHit('acc', CYCLE, 1));
      expect(error).toBeInstanceOf(CoordinationUnavailableError);
      expect(ms).toBeLessThan(1_000);
    } finally {
      await closeRedisClient(redis);
    }
  });
});

describe.each([
  ['plain', false],
  ['auto-pipelined', true],
])('a %s Redis client whose server goes away and comes back', (_kind, autoPipelining) => {
  let proxy: TcpProxy;
  beforeEach(async () => {
    proxy = await TcpProxy.inFrontOf(TEST_REDIS_URL);
  });
  afterEach(() => proxy.close());

  it('fails fast during the outage and heals by itself within a few seconds', async () => {
    const redis = await clients.connect('outage', proxy.rewrite(TEST_REDIS_URL), { autoPipelining });
    const direct = await clients.connect('outage-direct');
    const store = new RedisUsageCounterStore(redis);
    const account = `acc-${randomUUID()}`;
    try {
      await store.seed(account, CYCLE, ZERO_USAGE);
      await proxy.cut();
      await eventually('the client has seen its connection close', () => redis.status !== 'ready');
      const { error, ms } = await failureOf(() => store.tryHit(account, CYCLE, 10));
      expect(error).toBeInstanceOf(CoordinationUnavailableError);
      expect(ms).toBeLessThan(1_000);

      await proxy.restore();
      const back = Date.now();
      await eventually(
        'recovery',
        async () => (await store.tryHit(account, CYCLE, 10))?.allowed === true,
        5_000,
      );
      expect(Date.now() - back).toBeLessThan(3_000);
      expect((await store.read(account, CYCLE))?.apiHits).toBe(1); // the failed hit was not counted
    } finally {
      await direct.del(usageCountersKey(account, CYCLE));
    }
  });

  it('gives up on a server that accepts but never answers, instead of hanging the request', async () => {
    const redis = await clients.connect('hang', proxy.rewrite(TEST_REDIS_URL), { autoPipelining });
    proxy.blackhole();
    const health = await failureOf(() => new RedisCoordinationHealth(redis).check());
    expect(health.error).toBeInstanceOf(CoordinationUnavailableError);
    expect(health.ms).toBeGreaterThanOrEqual(950);
    expect(health.ms).toBeLessThan(1_500);

    const hit = await failureOf(() => new RedisUsageCounterStore(redis).tryHit('acc', CYCLE, 1));
    expect(hit.error).toBeInstanceOf(CoordinationUnavailableError);
    // One command timeout (2 s). An auto-pipelined client sends one batch at a time (ioredis), so
    // the hit first waits for the batch of the unanswered PING to time out: two at the most.
    expect(hit.ms).toBeLessThan(autoPipelining ? 4_500 : 3_000);
  });
});

describe('RedisCoordinationHealth', () => {
  let proxy: TcpProxy;
  beforeEach(async () => {
    proxy = await TcpProxy.inFrontOf(TEST_REDIS_URL);
  });
  afterEach(() => proxy.close());

  // A readiness probe that passed without asking Redis would keep a gateway in the load balancer
  // through an outage: this one must follow the server, down and back up.
  it('passes while Redis answers, fails while it is away, and passes again once it is back', async () => {
    const health = new RedisCoordinationHealth(
      await clients.connect('health', proxy.rewrite(TEST_REDIS_URL)),
    );
    await expect(health.check()).resolves.toBeUndefined();

    await proxy.cut();
    await eventually(
      'the probe fails with CoordinationUnavailableError',
      async () => (await failureOf(() => health.check())).error instanceof CoordinationUnavailableError,
    );

    await proxy.restore();
    await eventually('the probe passes again', async () => {
      await health.check();
      return true;
    });
  });
});

describe('createRedisClient', () => {
  it('names the connection and backs off up to ~2 s between reconnection attempts, forever', async () => {
    const redis = await clients.connect('named');
    expect(await redis.client('GETNAME')).toBe(redis.options.connectionName);
    expect(redis.options.enableOfflineQueue).toBe(false);
    expect(redis.options.maxRetriesPerRequest).toBe(1);
    expect([1, 2, 3, 4, 5, 6, 100, 10_000].map(redisReconnectDelay)).toEqual([
      100, 200, 400, 800, 1600, 2000, 2000, 2000,
    ]);
  });
});

describe('an auto-pipelined Redis client', () => {
  it('sends the commands of one event-loop turn in one write, each answered as if alone', async () => {
    const redis = await clients.connect('auto-pipelined', TEST_REDIS_URL, { autoPipelining: true });
    const store = new RedisUsageCounterStore(redis);
    const account = `acc-${randomUUID()}`;
    await store.seed(account, CYCLE, ZERO_USAGE);
    const writes = jest.spyOn(redis.stream, 'write');
    try {
      // Twelve hits against a cap of ten, issued together: still exactly ten allowed.
      const hits = await Promise.all(Array.from({ length: 12 }, () => store.tryHit(account, CYCLE, 10)));
      expect(hits.filter((hit) => hit?.allowed)).toHaveLength(10);
      expect(writes).toHaveBeenCalledTimes(1);
      expect((await store.read(account, CYCLE))?.apiHits).toBe(10);
    } finally {
      writes.mockRestore();
      await redis.del(usageCountersKey(account, CYCLE));
    }
  });
});

describe('waitForRedisReady', () => {
  it('gives up with CoordinationUnavailableError when Redis does not come', async () => {
    const redis = createRedisClient(`redis://127.0.0.1:${await closedPort()}`, 'jumbe-test-never-ready');
    try {
      await expect(waitForRedisReady(redis, 200)).rejects.toBeInstanceOf(CoordinationUnavailableError);
    } finally {
      await closeRedisClient(redis);
    }
  });
});

describe('isRedisConnectionFailure', () => {
  it('tells connection trouble from command errors', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(isRedisConnectionFailure(refused)).toBe(true);
    expect(isRedisConnectionFailure(new Error('Connection is closed.'))).toBe(true);
    expect(
      isRedisConnectionFailure(new Error("Stream isn't writeable and enableOfflineQueue options is false")),
    ).toBe(true);
    expect(isRedisConnectionFailure(new Error('LOADING Redis is loading the dataset in memory'))).toBe(true);
    expect(
      isRedisConnectionFailure(
        new Error('WRONGTYPE Operation against a key holding the wrong kind of value'),
      ),
    ).toBe(false);
    expect(isRedisConnectionFailure(new Error('ERR syntax error'))).toBe(false);
    expect(isRedisConnectionFailure('ECONNREFUSED')).toBe(false);
  });

  it('passes command errors through untouched', async () => {
    const bug = new Error('ERR wrong number of arguments');
    await expect(withRedisFailuresTranslated('op', () => Promise.reject(bug))).rejects.toBe(bug);
  });
});
