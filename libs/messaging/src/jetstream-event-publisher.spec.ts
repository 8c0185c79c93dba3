import { randomBytes } from 'node:crypto';
import { AckPolicy, connect, DiscardPolicy, type NatsConnection, RetentionPolicy } from 'nats';
import { BusNoResponderError, BusTimeoutError, BusUnavailableError } from './bus-errors';
import type { OutgoingEvent } from './event-publisher';
import { ensureEventStream, JetStreamEventPublisher } from './jetstream-event-publisher';
import { failureOf } from './test-support/timing';

const NATS_URL = process.env['JUMBE_TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222';

describe('JetStreamEventPublisher (real NATS JetStream)', () => {
  // Streams and subjects of our own, so parallel runs and other deployments never interfere.
  const suffix = randomBytes(5).toString('hex');
  const stream = `PUB_${suffix.toUpperCase()}`;
  const namespace = `pub${suffix}.`;
  const subjectRoot = `${namespace}jumbe.v1.events`;
  /** Takes one message and refuses every later one (JetStream answers with an error). */
  const fullStream = `PUBFULL_${suffix.toUpperCase()}`;
  const fullNamespace = `pubfull${suffix}.`;

  const connections: NatsConnection[] = [];
  let admin: NatsConnection;
  let publisher: JetStreamEventPublisher;

  const open = async (name: string) => {
    const connection = await connect({ servers: NATS_URL, name: `jumbe-test-${name}`, noAsyncTraces: true });
    connections.push(connection);
    return connection;
  };

  const event = (id: string, payload: unknown = { event: 'message.received', id }): OutgoingEvent => ({
    eventId: `evt-${suffix}-${id}`,
    subject: `jumbe.v1.events.7.acct-7.${id}`,
    shard: 7,
    payload,
  });

  const jsm = async () => admin.jetstreamManager();
  const stored = async (name = stream) => (await (await jsm()).streams.info(name)).state.messages;
  const lastOn = async (subject: string) =>
    (await jsm()).streams.getMessage(stream, { last_by_subj: `${namespace}${subject}` });

  beforeAll(async () => {
    admin = await open('admin');
    await ensureEventStream(admin, { name: stream, subjectRoot, duplicateWindowMs: 60_000 });
    await (
      await jsm()
    ).streams.add({
      name: fullStream,
      subjects: [`${fullNamespace}>`],
      retention: RetentionPolicy.Limits,
      max_msgs: 1,
      discard: DiscardPolicy.New,
    });
    publisher = new JetStreamEventPublisher(await open('publisher'), namespace);
  });
  afterAll(async () => {
    try {
      await (await jsm()).streams.delete(stream);
      await (await jsm()).streams.delete(fullStream);
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
  });

  it('stores the payload as JSON under the namespaced subject, with the event id as Nats-Msg-Id', async () => {
    const before = await stored();
    await publisher.publish(event('stored', { event: 'message.received', text: 'hé ✓' }));
    expect(await stored()).toBe(before + 1);

    const message = await lastOn('jumbe.v1.events.7.acct-7.stored');
    expect(message.json()).toEqual({ event: 'message.received', text: 'hé ✓' });
    expect(message.header.get('Nats-Msg-Id')).toBe(`evt-${suffix}-stored`);
  });

  it("carries the event's own headers beside the event id", async () => {
    await publisher.publish({ ...event('traced'), headers: { traceparent: '00-trace-span-01' } });
    const message = await lastOn('jumbe.v1.events.7.acct-7.traced');
    expect(message.header.get('traceparent')).toBe('00-trace-span-01');
    expect(message.header.get('Nats-Msg-Id')).toBe(`evt-${suffix}-traced`);
  });

  it('resolves for a repeated event id without storing it again (the network redelivered it)', async () => {
    await publisher.publish(event('twice', { copy: 1 }));
    const before = await stored();
    await publisher.publish(event('twice', { copy: 2 }));
    expect(await stored()).toBe(before);
    expect((await lastOn('jumbe.v1.events.7.acct-7.twice')).json()).toEqual({ copy: 1 });
  });

  it('stores events published without waiting for each other in the order they were published', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `burst-${i}`);
    await Promise.all(
      ids.map((id) => publisher.publish({ ...event(id), subject: 'jumbe.v1.events.7.acct-7.burst' })),
    );
    const consumer = await (
      await jsm()
    ).consumers.add(stream, {
      filter_subject: `${namespace}jumbe.v1.events.7.acct-7.burst`,
      ack_policy: AckPolicy.Explicit,
    });
    const messages = await (
      await admin.jetstream().consumers.get(stream, consumer.name)
    ).fetch({ max_messages: 50 });
    const order: string[] = [];
    for await (const message of messages) {
      order.push(message.headers?.get('Nats-Msg-Id') ?? '');
      message.ack();
      if (order.length === 50) break;
    }
    expect(order).toEqual(ids.map((id) => `evt-${suffix}-${id}`));
  });

  it('fails with BusUnavailableError when no stream stores the subject (no responders)', async () => {
    const nowhere = new JetStreamEventPublisher(await open('nowhere'), `nostream${suffix}.`);
    const failure = (await failureOf(() => nowhere.publish(event('lost')))).error;
    expect(failure).toBeInstanceOf(BusUnavailableError);
    expect((failure as BusUnavailableError).cause).toBeInstanceOf(BusNoResponderError);
  });

  it('fails with BusUnavailableError when JetStream refuses to store the event', async () => {
    const full = new JetStreamEventPublisher(await open('full'), fullNamespace);
    await full.publish(event('first'));
    const failure = (await failureOf(() => full.publish(event('second')))).error;
    expect(failure).toBeInstanceOf(BusUnavailableError);
    expect((failure as Error).message).toMatch(/maximum messages/i);
    expect(await stored(fullStream)).toBe(1);
  });

  it('fails with BusUnavailableError when whatever answers is not JetStream', async () => {
    const impostor = await open('impostor');
    const subject = `impostor${suffix}.jumbe.v1.events.7.acct-7.x`;
    impostor.subscribe(subject, {
      callback: (_error, message) => message.respond(new TextEncoder().encode('{}')),
    });
    await impostor.flush();
    const fooled = new JetStreamEventPublisher(await open('fooled'), `impostor${suffix}.`);
    await expect(fooled.publish(event('x'))).rejects.toBeInstanceOf(BusUnavailableError);
  });

  it('fails with BusUnavailableError when no acknowledgement comes in time', async () => {
    const silent = await open('silent');
    silent.subscribe(`silent${suffix}.>`, { callback: () => undefined });
    await silent.flush();
    const waiting = new JetStreamEventPublisher(await open('waiting'), `silent${suffix}.`, 200);
    const failure = (await failureOf(() => waiting.publish(event('unanswered')))).error;
    expect(failure).toBeInstanceOf(BusUnavailableError);
    expect((failure as BusUnavailableError).cause).toBeInstanceOf(BusTimeoutError);
  });

  it('fails with BusUnavailableError once its connection is closed', async () => {
    const connection = await open('closing');
    const closing = new JetStreamEventPublisher(connection, namespace);
    await closing.publish(event('before-close'));
    await connection.close();
    await expect(closing.publish(event('after-close'))).rejects.toBeInstanceOf(BusUnavailableError);
  });
});
