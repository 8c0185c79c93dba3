import { randomUUID } from 'node:crypto';
import { BusHandlerError, BusNoResponderError, BusTimeoutError, BusUnavailableError } from './bus-errors';
import { InProcessMessageBus } from './in-process-message-bus';
import type { MessageBus } from './message-bus';
import { NatsMessageBus } from './nats-message-bus';
import { delay, failureOf } from './test-support/timing';

const TEST_NATS_URL = process.env['JUMBE_TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** A requester and two servers; for NATS, three separate connections (as three processes). */
interface Buses {
  requester: MessageBus;
  serverA: MessageBus;
  serverB: MessageBus;
  close(): Promise<void>;
}

const implementations: Array<[string, () => Promise<Buses>]> = [
  [
    'NatsMessageBus',
    async () => {
      const [requester, serverA, serverB] = await Promise.all(
        ['requester', 'server-a', 'server-b'].map((role) =>
          NatsMessageBus.connect(TEST_NATS_URL, `jumbe-test-${role}`),
        ),
      );
      return {
        requester: requester as MessageBus,
        serverA: serverA as MessageBus,
        serverB: serverB as MessageBus,
        close: async () => void (await Promise.all([requester, serverA, serverB].map((bus) => bus?.close()))),
      };
    },
  ],
  [
    'InProcessMessageBus',
    async () => {
      const bus = new InProcessMessageBus();
      return { requester: bus, serverA: bus, serverB: bus, close: () => bus.close() };
    },
  ],
];

const newSubject = (): string => `test.${randomUUID()}`;

describe.each(implementations)('%s', (_name, makeBuses) => {
  let buses: Buses;
  const subscriptions: Array<{ unsubscribe(): Promise<void> }> = [];
  beforeAll(async () => {
    buses = await makeBuses();
  });
  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((subscription) => subscription.unsubscribe()));
  });
  afterAll(() => buses.close());

  const serve = async (
    bus: MessageBus,
    subject: string,
    handler: (payload: unknown) => Promise<unknown>,
    queue?: string,
  ) => {
    const subscription = await bus.serve(subject, handler, { queue });
    subscriptions.push(subscription);
    return subscription;
  };

  it('carries a JSON request to the server and its JSON reply back', async () => {
    const subject = newSubject();
    const seen: unknown[] = [];
    await serve(buses.serverA, subject, async (payload) => {
      seen.push(payload);
      return { echoed: payload, at: new Date(0) };
    });
    const payload = { text: 'hi', nested: { n: 1, list: [true, null] }, when: new Date(0), gone: undefined };
    const reply = await buses.requester.request(subject, payload, { timeoutMs: 1_000 });
    // Exactly what JSON would carry: Dates as strings, undefined properties dropped.
    const asJson = { text: 'hi', nested: { n: 1, list: [true, null] }, when: '1970-01-01T00:00:00.000Z' };
    expect(seen).toEqual([asJson]);
    expect(reply).toEqual({ echoed: asJson, at: '1970-01-01T00:00:00.000Z' });
  });

  it('carries "nothing" both ways, and null as null', async () => {
    const subject = newSubject();
    const seen: unknown[] = [];
    await serve(buses.serverA, subject, async (payload) => {
      seen.push(payload);
      return payload === undefined ? undefined : null;
    });
    expect(await buses.requester.request(subject, undefined, { timeoutMs: 1_000 })).toBeUndefined();
    expect(await buses.requester.request(subject, 0, { timeoutMs: 1_000 })).toBeNull();
    expect(seen).toEqual([undefined, 0]);
  });

  it('carries request headers to the handler, and none when the requester gives none', async () => {
    const subject = newSubject();
    const seen: unknown[] = [];
    const subscription = await buses.serverA.serve(subject, async (_payload, message) => {
      seen.push(message.headers);
    });
    subscriptions.push(subscription);
    const headers = { 'Jumbe-Request-Id': 'req-42', traceparent: '00-abc-def-01' };
    await buses.requester.request(subject, {}, { timeoutMs: 1_000, headers });
    await buses.requester.request(subject, {}, { timeoutMs: 1_000 });
    expect(seen).toEqual([headers, {}]);
  });

  it('fails at once with BusNoResponderError when nobody serves the subject', async () => {
    const subject = newSubject();
    const { error, ms } = await failureOf(() => buses.requester.request(subject, {}, { timeoutMs: 5_000 }));
    expect(error).toBeInstanceOf(BusNoResponderError);
    expect((error as BusNoResponderError).subject).toBe(subject);
    expect(ms).toBeLessThan(500);
  });

  it('reaches the servers of the moment: one that came after a request, not one that left', async () => {
    const subject = newSubject();
    const ask = () => buses.requester.request(subject, {}, { timeoutMs: 1_000 });
    await expect(ask()).rejects.toBeInstanceOf(BusNoResponderError);
    const a = await serve(buses.serverA, subject, async () => 'a', 'workers');
    expect(await ask()).toBe('a');
    const b = await serve(buses.serverB, subject, async () => 'b', 'workers');
    const answers = new Set<unknown>();
    for (let i = 0; i < 20 && answers.size < 2; i += 1) answers.add(await ask());
    expect(answers).toEqual(new Set(['a', 'b']));
    await a.unsubscribe();
    for (let i = 0; i < 4; i += 1) expect(await ask()).toBe('b');
    await b.unsubscribe();
    await expect(ask()).rejects.toBeInstanceOf(BusNoResponderError);
  });

  it('fails with BusTimeoutError when the server does not answer in time', async () => {
    const subject = newSubject();
    await serve(buses.serverA, subject, async () => {
      await delay(600);
      return 'late';
    });
    const { error, ms } = await failureOf(() => buses.requester.request(subject, {}, { timeoutMs: 150 }));
    expect(error).toBeInstanceOf(BusTimeoutError);
    expect(ms).toBeGreaterThanOrEqual(140);
    expect(ms).toBeLessThan(500);
  });

  it('turns a throwing handler into BusHandlerError with its message, and keeps serving', async () => {
    const subject = newSubject();
    await serve(buses.serverA, subject, async (payload) => {
      if (payload === 'explode') throw new Error('database is on fire');
      if (payload === 'reject') return Promise.reject('plain string');
      return 'fine';
    });
    const thrown = await failureOf(() => buses.requester.request(subject, 'explode', { timeoutMs: 1_000 }));
    expect(thrown.error).toBeInstanceOf(BusHandlerError);
    expect(thrown.error).toMatchObject({ message: 'database is on fire', subject });
    const rejected = await failureOf(() => buses.requester.request(subject, 'reject', { timeoutMs: 1_000 }));
    expect(rejected.error).toMatchObject({ name: 'BusHandlerError', message: 'plain string' });
    expect(await buses.requester.request(subject, 'ok', { timeoutMs: 1_000 })).toBe('fine');
  });

  it('reports a reply that cannot be sent as JSON as a handler error', async () => {
    const subject = newSubject();
    await serve(buses.serverA, subject, async () => ({ big: BigInt(1) }));
    const { error } = await failureOf(() => buses.requester.request(subject, {}, { timeoutMs: 1_000 }));
    expect(error).toBeInstanceOf(BusHandlerError);
  });

  it('shares requests between the servers of a queue group, each request served once', async () => {
    const subject = newSubject();
    const handledBy: string[] = [];
    const server = (name: string) => async (payload: unknown) => {
      handledBy.push(`${name}:${String(payload)}`);
      return name;
    };
    await serve(buses.serverA, subject, server('a'), 'workers');
    await serve(buses.serverB, subject, server('b'), 'workers');
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => buses.requester.request(subject, i, { timeoutMs: 2_000 })),
    );
    expect(handledBy).toHaveLength(40);
    expect(new Set(handledBy.map((entry) => entry.split(':')[1])).size).toBe(40);
    expect(replies.filter((reply) => reply === 'a').length).toBeGreaterThan(0);
    expect(replies.filter((reply) => reply === 'b').length).toBeGreaterThan(0);
  });

  it('without a queue group, gives the request to every server and takes the first reply', async () => {
    const subject = newSubject();
    const called: string[] = [];
    await serve(buses.serverA, subject, async () => {
      called.push('slow');
      await delay(150);
      return 'slow';
    });
    await serve(buses.serverB, subject, async () => {
      called.push('fast');
      return 'fast';
    });
    expect(await buses.requester.request(subject, {}, { timeoutMs: 1_000 })).toBe('fast');
    expect(called.sort()).toEqual(['fast', 'slow']);
  });

  it('handles requests concurrently: ten slow requests take one slow period, not ten', async () => {
    const subject = newSubject();
    let running = 0;
    let mostAtOnce = 0;
    await serve(buses.serverA, subject, async (payload) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await delay(300);
      running -= 1;
      return payload;
    });
    const started = Date.now();
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => buses.requester.request(subject, i, { timeoutMs: 2_000 })),
    );
    const elapsed = Date.now() - started;
    expect(replies).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(mostAtOnce).toBe(10);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(600);
  });

  it('routes NATS wildcards: * is one token, > the rest', async () => {
    const shard = `test.${randomUUID()}`;
    await serve(buses.serverA, `${shard}.*.send`, async () => 'one-token');
    await serve(buses.serverB, `${shard}.events.>`, async () => 'the-rest');
    expect(await buses.requester.request(`${shard}.s1.send`, {}, { timeoutMs: 1_000 })).toBe('one-token');
    expect(await buses.requester.request(`${shard}.events.a.b`, {}, { timeoutMs: 1_000 })).toBe('the-rest');
    const tooDeep = await failureOf(() =>
      buses.requester.request(`${shard}.s1.x.send`, {}, { timeoutMs: 1_000 }),
    );
    expect(tooDeep.error).toBeInstanceOf(BusNoResponderError);
    const tooShallow = await failureOf(() =>
      buses.requester.request(`${shard}.events`, {}, { timeoutMs: 1_000 }),
    );
    expect(tooShallow.error).toBeInstanceOf(BusNoResponderError);
  });

  it('rejects subjects NATS would refuse', async () => {
    await expect(buses.requester.request('', {}, { timeoutMs: 100 })).rejects.toThrow(TypeError);
    await expect(buses.requester.request('a..b', {}, { timeoutMs: 100 })).rejects.toThrow(TypeError);
    await expect(buses.requester.request('a.*', {}, { timeoutMs: 100 })).rejects.toThrow(TypeError);
    await expect(buses.serverA.serve('a b', async () => 1)).rejects.toThrow(TypeError);
    await expect(buses.serverA.serve('a.>.b', async () => 1)).rejects.toThrow(TypeError);
  });

  it('on unsubscribe, answers the requests already taken and takes no new ones', async () => {
    const subject = newSubject();
    let started = 0;
    const subscription = await buses.serverA.serve(subject, async () => {
      started += 1;
      await delay(200);
      return 'finished';
    });
    const inFlight = buses.requester.request(subject, {}, { timeoutMs: 2_000 });
    while (started === 0) await delay(5);
    await subscription.unsubscribe();
    await expect(inFlight).resolves.toBe('finished');
    await expect(buses.requester.request(subject, {}, { timeoutMs: 500 })).rejects.toBeInstanceOf(
      BusNoResponderError,
    );
  });

  it('passes its health check while usable', async () => {
    await expect(buses.requester.check()).resolves.toBeUndefined();
  });
});

describe.each(implementations)('%s after close', (_name, makeBuses) => {
  it('answers what it had taken, then refuses everything with BusUnavailableError', async () => {
    const buses = await makeBuses();
    const subject = newSubject();
    let started = false;
    await buses.serverA.serve(subject, async () => {
      started = true;
      await delay(200);
      return 'answered before closing';
    });
    const inFlight = buses.requester.request(subject, {}, { timeoutMs: 2_000 });
    while (!started) await delay(5);
    await buses.serverA.close();
    await expect(inFlight).resolves.toBe('answered before closing');
    await buses.close();

    await expect(buses.requester.check()).rejects.toBeInstanceOf(BusUnavailableError);
    await expect(buses.requester.request(subject, {}, { timeoutMs: 100 })).rejects.toBeInstanceOf(
      BusUnavailableError,
    );
    await expect(buses.serverA.serve(subject, async () => 1)).rejects.toBeInstanceOf(BusUnavailableError);
  });
});
