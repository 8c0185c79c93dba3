import { randomUUID } from 'node:crypto';
import { delay, eventually, TcpProxy } from '@jumbe/testing';
import type Redis from 'ioredis';
import type { InvalidationBus } from './invalidation-bus';
import { MemoryInvalidationBus } from './memory-invalidation-bus';
import { RedisInvalidationBus } from './redis-invalidation-bus';
import { RedisTestClients, serverClientId, TEST_REDIS_URL } from './test-support/redis-test-clients';

const clients = new RedisTestClients();
afterAll(() => clients.closeAll());

/** A publishing side and a subscribing side; for Redis, two buses on separate connections. */
interface BusPair {
  publisherSide: InvalidationBus;
  subscriberSide: InvalidationBus;
  close(): Promise<void>;
}

const implementations: Array<[string, () => Promise<BusPair>]> = [
  [
    'RedisInvalidationBus',
    async () => {
      const publisherSide = new RedisInvalidationBus(await clients.connect('inv-pub'), () =>
        clients.create('inv-unused'),
      );
      const subscriberSide = new RedisInvalidationBus(await clients.connect('inv-pub-2'), () =>
        clients.create('inv-sub'),
      );
      return { publisherSide, subscriberSide, close: async () => void (await subscriberSide.close()) };
    },
  ],
  [
    'MemoryInvalidationBus',
    async () => {
      const bus = new MemoryInvalidationBus();
      return { publisherSide: bus, subscriberSide: bus, close: () => bus.close() };
    },
  ],
];

const newTopic = (): string => `test-${randomUUID()}`;

describe.each(implementations)('%s', (_name, makeBuses) => {
  let buses: BusPair;
  beforeAll(async () => {
    buses = await makeBuses();
  });
  afterAll(() => buses.close());

  it('delivers a published message to a subscriber on another connection', async () => {
    const topic = newTopic();
    const received: string[] = [];
    const off = await buses.subscriberSide.subscribe(topic, (message) => received.push(message));
    await buses.publisherSide.publish(topic, 'key:123');
    await eventually('delivery', () => received.length === 1, 1_000);
    expect(received).toEqual(['key:123']);
    await off();
  });

  it('delivers only the subscribed topic, to every handler, in order', async () => {
    const [topic, other] = [newTopic(), newTopic()];
    const first: string[] = [];
    const second: string[] = [];
    const unrelated: string[] = [];
    const offs = await Promise.all([
      buses.subscriberSide.subscribe(topic, (message) => first.push(message)),
      buses.subscriberSide.subscribe(topic, (message) => second.push(message)),
      buses.subscriberSide.subscribe(other, (message) => unrelated.push(message)),
    ]);
    for (const message of ['a', 'b', 'c']) await buses.publisherSide.publish(topic, message);
    await eventually('delivery', () => first.length === 3 && second.length === 3, 1_000);
    expect(first).toEqual(['a', 'b', 'c']);
    expect(second).toEqual(['a', 'b', 'c']);
    expect(unrelated).toEqual([]);
    await Promise.all(offs.map((off) => off()));
  });

  it('stops delivering to a handler once it unsubscribed, and keeps delivering to the others', async () => {
    const [topic, sentinelTopic] = [newTopic(), newTopic()];
    const removed: string[] = [];
    const kept: string[] = [];
    const sentinel: string[] = [];
    const offRemoved = await buses.subscriberSide.subscribe(topic, (message) => removed.push(message));
    const offKept = await buses.subscriberSide.subscribe(topic, (message) => kept.push(message));
    const offSentinel = await buses.subscriberSide.subscribe(sentinelTopic, (message) =>
      sentinel.push(message),
    );
    await offRemoved();
    await buses.publisherSide.publish(topic, 'after');
    // Same publisher, same subscriber connection: once the later sentinel arrived, so did 'after'.
    await buses.publisherSide.publish(sentinelTopic, 'done');
    await eventually('sentinel', () => sentinel.length === 1, 1_000);
    expect(kept).toEqual(['after']);
    expect(removed).toEqual([]);

    await offKept();
    await buses.publisherSide.publish(topic, 'nobody');
    await buses.publisherSide.publish(sentinelTopic, 'done again');
    await eventually('sentinel', () => sentinel.length === 2, 1_000);
    expect(kept).toEqual(['after']);
    await offSentinel();
  });

  it('keeps delivering to other handlers when one throws, and never fails the publisher', async () => {
    const topic = newTopic();
    const received: string[] = [];
    const offThrowing = await buses.subscriberSide.subscribe(topic, () => {
      throw new Error('cache exploded');
    });
    const offHealthy = await buses.subscriberSide.subscribe(topic, (message) => received.push(message));
    await expect(buses.publisherSide.publish(topic, 'x')).resolves.toBeUndefined();
    await eventually('delivery', () => received.length === 1, 1_000);
    await Promise.all([offThrowing(), offHealthy()]);
  });
});

describe('RedisInvalidationBus when the subscriber connection is lost', () => {
  let observer: Redis;
  beforeAll(async () => {
    observer = await clients.connect('inv-observer');
  });

  it('reports a possible loss after CLIENT KILL, only once resubscribed, and keeps delivering', async () => {
    // The subscriber talks to Redis with 150 ms latency: a loss report sent before its SUBSCRIBE
    // reached Redis would make the publish below (on a direct connection) miss it.
    const slowLink = await TcpProxy.inFrontOf(TEST_REDIS_URL, { latencyMs: 150 });
    let subscriber: Redis | undefined;
    const bus = new RedisInvalidationBus(await clients.connect('inv-pub-3'), () => {
      subscriber = clients.create('inv-killed', slowLink.rewrite(TEST_REDIS_URL));
      return subscriber;
    });
    const topic = newTopic();
    const received: string[] = [];
    let losses = 0;
    bus.onPossibleLoss(() => {
      losses += 1;
      // Published from inside the handler: it must arrive, which proves the subscription was
      // live again before the handler ran (caches refilled from here on miss nothing).
      void observer.publish(`jumbe:invalidate:${topic}`, 'published-in-loss-handler');
    });
    await bus.subscribe(topic, (message) => received.push(message));
    await bus.publish(topic, 'before');
    await eventually('first delivery', () => received.length === 1, 1_000);
    expect(losses).toBe(0);

    const subscriberName = subscriber?.options.connectionName ?? '';
    const killed = await observer.client('KILL', 'ID', await serverClientId(observer, subscriberName));
    expect(killed).toBe(1);
    await eventually('possible-loss report', () => losses === 1, 5_000);
    await eventually(
      'message published in the loss handler',
      () => received.includes('published-in-loss-handler'),
      1_000,
    );

    await bus.publish(topic, 'after');
    await eventually('delivery after reconnect', () => received.includes('after'), 1_000);
    expect(received).toEqual(['before', 'published-in-loss-handler', 'after']);
    expect(losses).toBe(1);
    await bus.close();
    await slowLink.close();
  });

  it('lets a service subscribe while Redis is down, and goes live with a loss report when it is back', async () => {
    const proxy = await TcpProxy.inFrontOf(TEST_REDIS_URL);
    await proxy.cut(); // Redis is "down" from the start
    const bus = new RedisInvalidationBus(await clients.connect('inv-pub-4'), () =>
      clients.create('inv-late', proxy.rewrite(TEST_REDIS_URL)),
    );
    const topic = newTopic();
    const received: string[] = [];
    let losses = 0;
    bus.onPossibleLoss(() => (losses += 1));

    const started = Date.now();
    const off = await bus.subscribe(topic, (message) => received.push(message));
    expect(Date.now() - started).toBeLessThan(2_000);

    await proxy.restore(); // Redis is back on the same address
    await eventually('possible-loss report', () => losses === 1, 5_000);
    await bus.publish(topic, 'hello');
    await eventually('delivery', () => received.length === 1, 1_000);
    await off();
    await bus.close();
    await proxy.close();
  });

  it('reports a loss after an outage that dropped every connection', async () => {
    const proxy = await TcpProxy.inFrontOf(TEST_REDIS_URL);
    const bus = new RedisInvalidationBus(await clients.connect('inv-pub-5'), () =>
      clients.create('inv-outage', proxy.rewrite(TEST_REDIS_URL)),
    );
    const topic = newTopic();
    const received: string[] = [];
    let losses = 0;
    bus.onPossibleLoss(() => (losses += 1));
    await bus.subscribe(topic, (message) => received.push(message));
    await bus.publish(topic, 'one');
    await eventually('delivery', () => received.length === 1, 1_000);

    await proxy.cut();
    await bus.publish(topic, 'lost while down'); // the publisher is fine; the subscriber is not
    await delay(300);
    expect(losses).toBe(0); // reported once live again, not while still down
    await proxy.restore();
    await eventually('possible-loss report', () => losses === 1, 5_000);
    await bus.publish(topic, 'two');
    await eventually('delivery', () => received.includes('two'), 1_000);
    expect(received).toEqual(['one', 'two']);
    await bus.close();
    await proxy.close();
  });
});
