import { SecretBox } from '@jumbe/domain';
import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { ensureEventStream, JetStreamEventPublisher } from './jetstream-event-publisher';
import { JetStreamLiveEventLog } from './jetstream-live-event-log';
import type { LiveEvent, LiveEventCursor } from './live-event-log';
import { eventually } from './test-support/timing';

const NATS_URL = process.env['JUMBE_TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222';

describe('JetStream live event log (real NATS JetStream)', () => {
  const suffix = randomBytes(5).toString('hex');
  const stream = `TEST_${suffix.toUpperCase()}`;
  const namespace = `test${suffix}.`;
  const settings = {
    name: `${stream}_LIVE`,
    eventSubjectRoot: `${namespace}jumbe.v1.events`,
    liveSubjectRoot: `${namespace}jumbe.v1.live`,
  };
  const seal = new SecretBox(randomBytes(32).toString('base64url'), 'live-events');
  const connections: NatsConnection[] = [];
  const cursors: LiveEventCursor[] = [];
  let publisher: JetStreamEventPublisher;
  let gateways: JetStreamLiveEventLog[];

  const open = async () => {
    const connection = await connect({ servers: NATS_URL });
    connections.push(connection);
    return connection;
  };
  const publish = (accountId: string, id: string) =>
    publisher.publish({
      eventId: `${accountId}:main:${id}`,
      subject: `jumbe.v1.events.2.${accountId}.main`,
      shard: 2,
      payload: { event: 'message.received', customerId: accountId, id },
    });
  /** The next `count` events of a cursor (iterated once, as a stream does, across calls). */
  const reading = new Map<LiveEventCursor, AsyncIterator<LiveEvent>>();
  const read = async (cursor: LiveEventCursor, count: number): Promise<LiveEvent[]> => {
    const iterator = reading.get(cursor) ?? cursor[Symbol.asyncIterator]();
    reading.set(cursor, iterator);
    const events: LiveEvent[] = [];
    while (events.length < count) {
      const next = await iterator.next();
      if (next.done) break;
      events.push(next.value);
    }
    return events;
  };

  beforeAll(async () => {
    const admin = await open();
    await ensureEventStream(admin, {
      name: stream,
      subjectRoot: settings.eventSubjectRoot,
      duplicateWindowMs: 60_000,
    });
    publisher = new JetStreamEventPublisher(await open(), namespace);
    // Two gateways, each copying what is published.
    gateways = [
      new JetStreamLiveEventLog(await open(), settings, seal),
      new JetStreamLiveEventLog(await open(), settings, seal),
    ];
    for (const gateway of gateways) await gateway.start();
  });

  afterAll(async () => {
    for (const cursor of cursors) await cursor.close();
    for (const gateway of gateways) await gateway.stop();
    const manager = await connections[0]?.jetstreamManager();
    await manager?.streams.delete(settings.name).catch(() => undefined);
    await manager?.streams.delete(stream).catch(() => undefined);
    for (const connection of connections) await connection.close();
  });

  it('keeps each published event once, whatever the number of gateways copying it', async () => {
    const before = await gateways[0]?.position();
    await publish('acct-a', 'a1');
    await publish('acct-b', 'b1');
    await publish('acct-a', 'a2');
    await eventually(
      'the three events copied',
      async () => (await gateways[0]?.position())?.latest === (before?.latest ?? 0) + 3,
    );
    // Both gateways' copies arrived by now; the stream still holds three.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await gateways[1]?.position())?.latest).toBe((before?.latest ?? 0) + 3);
  });

  it('keeps payloads sealed, bound to their subject: another key, or the bytes under another account, open to nothing', async () => {
    const manager = await connections[0]?.jetstreamManager();
    const stored = await manager?.streams.getMessage(settings.name, {
      seq: (await gateways[0]?.position())?.oldestKept ?? 1,
    });
    if (!stored) throw new Error('nothing stored');
    expect(Buffer.from(stored.data).toString('latin1')).not.toContain('message.received');
    expect(JSON.parse(seal.openBytes(Buffer.from(stored.data), stored.subject).toString())).toMatchObject({
      event: 'message.received',
    });
    expect(() =>
      seal.openBytes(Buffer.from(stored.data), stored.subject.replace('acct-a', 'acct-b')),
    ).toThrow();
    const otherKey = new SecretBox(randomBytes(32).toString('base64url'), 'live-events');
    expect(() => otherKey.openBytes(Buffer.from(stored.data), stored.subject)).toThrow();
  });

  it("follows one account's events from a sequence on, then the new ones", async () => {
    const cursor = await gateways[1]?.follow('acct-a', 0);
    if (!cursor) throw new Error('no gateway');
    cursors.push(cursor);
    const first = await read(cursor, 2);
    expect(first.map((event) => event.eventId)).toEqual(['acct-a:main:a1', 'acct-a:main:a2']);
    await publish('acct-a', 'a3');
    const [next] = await read(cursor, 1);
    expect(next?.eventId).toBe('acct-a:main:a3');
    expect(next?.payload).toEqual({ event: 'message.received', customerId: 'acct-a', id: 'a3' });

    const resumed = await gateways[0]?.follow('acct-a', first[1]?.seq ?? 0);
    if (!resumed) throw new Error('no gateway');
    cursors.push(resumed);
    expect((await read(resumed, 1)).map((event) => event.seq)).toEqual([next?.seq]);

    // A reader that leaves takes its consumer with it.
    const manager = await connections[0]?.jetstreamManager();
    const consumersBefore = (await manager?.streams.info(settings.name))?.state.consumer_count;
    await resumed.close();
    expect((await manager?.streams.info(settings.name))?.state.consumer_count).toBe(
      (consumersBefore ?? 0) - 1,
    );
  });
});
