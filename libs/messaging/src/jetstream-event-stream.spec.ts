import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { BusUnavailableError } from './bus-errors';
import type { OutgoingEvent } from './event-publisher';
import type { DeliverableEvent, EventConsumption } from './event-source';
import { ensureEventStream, JetStreamEventPublisher } from './jetstream-event-publisher';
import { JetStreamEventSource } from './jetstream-event-source';
import { TcpProxy } from '@jumbe/testing';
import { delay, eventually } from './test-support/timing';

const NATS_URL = process.env['JUMBE_TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** Redelivery waits this long; small so the suite is quick, large enough for a few round trips. */
const ACK_WAIT_MS = 600;

describe('JetStream event publisher and source (real NATS JetStream)', () => {
  // A stream and subject root of our own, so parallel runs and other deployments never interfere.
  const suffix = randomBytes(5).toString('hex');
  const stream = `TEST_${suffix.toUpperCase()}`;
  const namespace = `test${suffix}.`;
  const subjectRoot = `${namespace}jumbe.v1.events`;

  const connections: NatsConnection[] = [];
  const consumptions: EventConsumption[] = [];
  let publisher: JetStreamEventPublisher;
  let admin: NatsConnection;

  const open = async (name: string) => {
    const connection = await connect({ servers: NATS_URL, name: `jumbe-test-${name}` });
    connections.push(connection);
    return connection;
  };
  const source = async (name: string) =>
    new JetStreamEventSource(await open(name), { stream, subjectRoot, ackWaitMs: ACK_WAIT_MS });

  const event = (shard: number, id: string, text = id): OutgoingEvent => ({
    eventId: `evt-${suffix}-${shard}-${id}`,
    // What InboundRelay publishes: the namespace is the publisher's to add.
    subject: `jumbe.v1.events.${shard}.acct-${shard}.main`,
    shard,
    payload: { event: 'message.received', message: { id, text } },
  });

  const storedMessages = async () =>
    (await (await admin.jetstreamManager()).streams.info(stream)).state.messages;

  async function record(from: JetStreamEventSource, shard: number, onEvent?: (e: DeliverableEvent) => void) {
    const received: DeliverableEvent[] = [];
    const consumption = await from.consume(shard, (delivered) => {
      received.push(delivered);
      onEvent?.(delivered);
    });
    consumptions.push(consumption);
    return { received, ids: () => received.map((delivered) => delivered.eventId), consumption };
  }

  beforeAll(async () => {
    admin = await open('admin');
    await ensureEventStream(admin, { name: stream, subjectRoot, duplicateWindowMs: 60_000 });
    publisher = new JetStreamEventPublisher(await open('publisher'), namespace);
  });
  afterEach(async () => {
    await Promise.all(consumptions.splice(0).map((consumption) => consumption.stop()));
  });
  afterAll(async () => {
    try {
      await (await admin.jetstreamManager()).streams.delete(stream);
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
  });

  it('creates the stream over the subject root, and may be run again at every start', async () => {
    await ensureEventStream(admin, { name: stream, subjectRoot, duplicateWindowMs: 60_000 });
    const info = await (await admin.jetstreamManager()).streams.info(stream);
    expect(info.config.subjects).toEqual([`${subjectRoot}.>`]);
    expect(info.config.duplicate_window).toBe(60_000 * 1_000_000);
  });

  it('has the event stored by the time publish resolves, and stores a repeated event id once', async () => {
    const before = await storedMessages();
    await publisher.publish(event(0, 'dup', 'original'));
    expect(await storedMessages()).toBe(before + 1);
    await publisher.publish(event(0, 'dup', 'copy'));
    await publisher.publish(event(0, 'dup', 'copy'));
    expect(await storedMessages()).toBe(before + 1);

    const { received } = await record(await source('dup-reader'), 0);
    await eventually('the event', () => received.length === 1);
    await delay(200);
    expect(received).toHaveLength(1);
    expect(received[0]?.payload).toEqual({
      event: 'message.received',
      message: { id: 'dup', text: 'original' },
    });
  });

  it('fails with BusUnavailableError when no stream stores the subject', async () => {
    const nowhere = new JetStreamEventPublisher(await open('nowhere'), `nostream${suffix}.`);
    await expect(nowhere.publish(event(0, 'lost'))).rejects.toBeInstanceOf(BusUnavailableError);
  });

  it("hands a shard's consumer only that shard's events, with id, namespaced subject and payload", async () => {
    await publisher.publish(event(1, 'one-a'));
    await publisher.publish(event(2, 'two-a'));
    await publisher.publish(event(11, 'eleven-a')); // "1" is a prefix of "11": must not match
    await publisher.publish(event(1, 'one-b'));

    const shardOne = await record(await source('shard-1'), 1);
    await eventually('both shard-1 events', () => shardOne.received.length >= 2);
    await delay(300);
    expect(shardOne.ids()).toEqual([`evt-${suffix}-1-one-a`, `evt-${suffix}-1-one-b`]);
    expect(shardOne.received[0]).toMatchObject({
      subject: `${subjectRoot}.1.acct-1.main`,
      payload: { event: 'message.received', message: { id: 'one-a', text: 'one-a' } },
    });

    const shardTwo = await record(await source('shard-2'), 2);
    await eventually('the shard-2 event', () => shardTwo.received.length >= 1);
    await delay(200);
    expect(shardTwo.ids()).toEqual([`evt-${suffix}-2-two-a`]);
  });

  it('hands an event over with the headers it was published with', async () => {
    await publisher.publish({ ...event(9, 'traced'), headers: { traceparent: '00-trace-span-01' } });
    const traced = await record(await source('traced'), 9);
    await eventually('the traced event', () => traced.received.length >= 1);
    expect(traced.received[0]?.headers).toMatchObject({ traceparent: '00-trace-span-01' });
  });

  it('hands an event published while consuming over at once', async () => {
    const live = await record(await source('live'), 3);
    await publisher.publish(event(3, 'live'));
    await eventually('the live event', () => live.received.length === 1, 2_000);
    expect(live.ids()).toEqual([`evt-${suffix}-3-live`]);
  });

  it("offers an unacknowledged event to the shard's next consumer, and never an acknowledged one", async () => {
    await publisher.publish(event(4, 'acked'));
    await publisher.publish(event(4, 'unacked'));

    const first = await record(await source('first-owner'), 4);
    await eventually('both events', () => first.received.length === 2);
    await first.received.find((delivered) => delivered.eventId.endsWith('-acked'))!.ack();
    await first.consumption.stop();

    // Another dispatcher (its own connection) takes the shard over, acknowledging what it gets.
    const second = await record(await source('second-owner'), 4, (delivered) => void delivered.ack());
    await eventually('the unacknowledged event', () => second.received.length >= 1, ACK_WAIT_MS * 5);
    // Long enough for the acknowledged event to show up too, were it still pending.
    await delay(ACK_WAIT_MS * 2);
    expect(second.ids()).toEqual([`evt-${suffix}-4-unacked`]);

    // Acknowledged by the second owner: a third one gets nothing.
    await second.consumption.stop();
    const third = await record(await source('third-owner'), 4);
    await delay(ACK_WAIT_MS * 2);
    expect(third.ids()).toEqual([]);
  });

  it('says which events no consumer was handed before: stored after the consumer began, first delivery', async () => {
    await publisher.publish(event(12, 'stored-before'));
    const reader = await record(await source('first-hand-out'), 12);
    await eventually('the stored event', () => reader.received.length === 1);
    const publishedAt = Date.now();
    await publisher.publish(event(12, 'stored-after'));
    await eventually('the new event', () => reader.received.length === 2);

    // Stored before the consumer was created: an earlier owner may have been handed it.
    expect(reader.received[0]?.firstHandOut).toBeUndefined();
    const fresh = reader.received[1]?.firstHandOut;
    expect(fresh?.duplicateWindowMs).toBe(60_000);
    expect(Math.abs(fresh!.storedAt.getTime() - publishedAt)).toBeLessThan(5_000);

    // Not acknowledged: offered again after the ack wait, no longer as a first hand-out.
    await eventually('the redeliveries', () => reader.received.length >= 4, ACK_WAIT_MS * 5);
    const again = reader.received.slice(2).find((delivered) => delivered.eventId.endsWith('stored-after'));
    expect(again).toBeDefined();
    expect(again?.firstHandOut).toBeUndefined();
  });

  it('keeps an event from coming back while its consumer reports it is still working on it', async () => {
    await publisher.publish(event(5, 'slow'));
    let working: NodeJS.Timeout | undefined;
    const slow = await record(await source('slow'), 5, (delivered) => {
      working ??= setInterval(() => void delivered.working(), ACK_WAIT_MS / 4);
    });
    try {
      await eventually('the event', () => slow.received.length === 1);
      await delay(ACK_WAIT_MS * 3);
      expect(slow.received).toHaveLength(1);
    } finally {
      clearInterval(working);
    }
    // No longer working on it and never acknowledged: it is offered again.
    await eventually('the redelivery', () => slow.received.length === 2, ACK_WAIT_MS * 5);
    expect(slow.ids()).toEqual([`evt-${suffix}-5-slow`, `evt-${suffix}-5-slow`]);
  });

  it('offers an event handed out over a hung connection at once and in order when consumed afresh after `resumed`', async () => {
    // Issue 28 (the fault schedule's seed 50): JetStream handed an event out as the dispatcher's
    // connection broke; it came back only after its acknowledgement wait, behind newer events.
    const proxy = await TcpProxy.inFrontOf(NATS_URL);
    try {
      const connection = await connect({
        servers: proxy.rewrite(NATS_URL),
        name: 'jumbe-test-hung',
        reconnectTimeWait: 50,
        maxReconnectAttempts: -1,
      });
      connections.push(connection);
      const hung = new JetStreamEventSource(connection, { stream, subjectRoot, ackWaitMs: 60_000 });
      const shard = 21;
      const id = (name: string) => `evt-${suffix}-${shard}-${name}`;
      let resumes = 0;
      hung.resumed(() => void resumes++);
      const first = await record(hung, shard);
      await publisher.publish(event(shard, 'before'));
      await eventually('the first event', () => first.received.length === 1);
      await first.received[0]?.ack();

      proxy.blackhole();
      await publisher.publish(event(shard, 'handed-out'));
      await delay(300);
      await proxy.restore();
      await eventually('the connection back', () => resumes === 1, 10_000);
      await publisher.publish(event(shard, 'after'));
      // Pins JetStream: the consumer that lived through the break gets the newer event first.
      await eventually('the newer event', () => first.ids().includes(id('after')), 10_000);
      expect(first.ids()).toEqual([id('before'), id('after')]);

      // What the dispatcher does on `resumed` (DispatcherShardOwner): consume the shard afresh.
      await first.consumption.stop();
      const afresh = await record(hung, shard);
      await eventually('both again', () => afresh.received.length >= 2, 10_000);
      expect(afresh.ids()).toEqual([id('handed-out'), id('after')]);
    } finally {
      await proxy.close();
    }
  }, 40_000);
});
