import {
  createDataSource,
  InboundEventRepository,
  openMigratedTestDatabase,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import type { DataSource } from 'typeorm';
import { DurableEventLog, type EventLogStore } from './durable-event-log';
import type { OutgoingEvent } from './event-publisher';
import type { DeliverableEvent, EventConsumption } from './event-source';
import { delay, eventually } from './test-support/timing';

/** A promise with its resolve exposed, to hold an operation at a chosen point. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * The real PostgreSQL store, with a hook to hold the reply of one call after the database has
 * done its work — exactly what a slow network between the app and PostgreSQL does (the INSERT is
 * committed, and visible to other connections, before the caller hears back).
 */
class HeldReplyStore implements EventLogStore {
  holdAppendReply: Promise<void> | null = null;
  holdPendingQuery: Promise<void> | null = null;
  holdPendingReply: Promise<void> | null = null;
  readonly appended: string[] = [];
  backlogReads = 0;

  constructor(private readonly inner: InboundEventRepository) {}

  async append(event: OutgoingEvent): Promise<boolean> {
    const stored = await this.inner.append(event);
    this.appended.push(event.eventId);
    if (this.holdAppendReply) await this.holdAppendReply;
    return stored;
  }

  async pending(shard: number) {
    if (this.holdPendingQuery) await this.holdPendingQuery;
    const backlog = await this.inner.pending(shard);
    this.backlogReads += 1;
    if (this.holdPendingReply) await this.holdPendingReply;
    return backlog;
  }

  removeAll(eventIds: string[]): Promise<void> {
    return this.inner.removeAll(eventIds);
  }
}

describe('DurableEventLog over the PostgreSQL inbound_events table', () => {
  let db: MigratedTestDatabase;
  let repository: InboundEventRepository;
  const consumptions: EventConsumption[] = [];
  let nextShard = 0;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    repository = new InboundEventRepository(db.dataSource);
  });
  afterEach(async () => {
    await Promise.all(consumptions.splice(0).map((consumption) => consumption.stop()));
  });
  afterAll(() => db.close());

  /** Each test uses shards no other test touches (the table is shared by the file). */
  const freshShard = () => nextShard++;

  const event = (shard: number, id: string, text = id): OutgoingEvent => ({
    eventId: `evt-${shard}-${id}`,
    subject: `jumbe.v1.events.${shard}.acct.main`,
    shard,
    payload: { event: 'message.received', message: { id, text } },
  });

  /** Consumes the shard, recording every event handed over (and acking nothing). */
  async function record(log: DurableEventLog, shard: number) {
    const received: DeliverableEvent[] = [];
    const consumption = await log.consume(shard, (delivered) => received.push(delivered));
    consumptions.push(consumption);
    return { received, ids: () => received.map((delivered) => delivered.eventId), consumption };
  }

  it("stores events published together in shared writes, each session's in order, live and after a restart", async () => {
    const shard = freshShard();
    let writes = 0;
    const counted: EventLogStore = {
      append: (published) => repository.append(published),
      appendAll: (published) => {
        writes += 1;
        return repository.appendAll(published);
      },
      pending: (s) => repository.pending(s),
      removeAll: (ids) => repository.removeAll(ids),
    };
    const log = new DurableEventLog(counted);
    const live = await record(log, shard);
    // Five sessions, each publishing its next event once the previous one is stored (as the relay does).
    const sessions = ['s1', 's2', 's3', 's4', 's5'];
    await Promise.all(
      sessions.map(async (session) => {
        for (let n = 1; n <= 4; n += 1) await log.publish(event(shard, `${session}-${n}`));
      }),
    );
    expect(writes).toBeLessThan(20);
    const order = (ids: string[], session: string) => ids.filter((id) => id.includes(`-${session}-`));
    const restarted = await record(new DurableEventLog(repository), shard);
    for (const session of sessions) {
      const expected = [1, 2, 3, 4].map((n) => `evt-${shard}-${session}-${n}`);
      expect(order(live.ids(), session)).toEqual(expected);
      expect(order(restarted.ids(), session)).toEqual(expected);
    }
  });

  it('says of an event stored and handed over live that nothing can be recorded of it yet; not of the backlog', async () => {
    const shard = freshShard();
    const log = new DurableEventLog(repository);
    await log.publish(event(shard, 'before'));
    const { received } = await record(log, shard);
    await log.publish(event(shard, 'live'));
    await eventually('both handed over', async () => received.length === 2);
    expect(received.map((delivered) => [delivered.eventId, delivered.unrecorded])).toEqual([
      [`evt-${shard}-before`, undefined],
      [`evt-${shard}-live`, true],
    ]);
  });

  it('does not say so of an event whose id was acknowledged while its append was in flight', async () => {
    // The race it guards against: an earlier copy's delivery recorded (and its row removed) just
    // after the append statement began, so the statement could not see that record.
    const shard = freshShard();
    let holdReply: Promise<void> | null = null;
    const store: EventLogStore = {
      append: (published) => repository.append(published),
      appendAll: async (published) => {
        const outcomes = await repository.appendAll(published);
        if (holdReply) await holdReply;
        return outcomes;
      },
      pending: (s) => repository.pending(s),
      removeAll: (ids) => repository.removeAll(ids),
    };
    const log = new DurableEventLog(store);
    const { received } = await record(log, shard);
    const published = event(shard, 'again');
    await log.publish(published);
    await eventually('first copy handed over', async () => received.length === 1);
    expect(received[0]?.unrecorded).toBe(true);

    // Its delivery recorded: the row leaves the log (as the record batch removes it)...
    await repository.removeAll([published.eventId]);
    let release!: () => void;
    holdReply = new Promise<void>((resolve) => (release = resolve));
    // ...the same event is published again, and while that append is in flight the first copy is
    // acknowledged.
    const again = log.publish(published);
    await eventually('second copy stored', async () => (await repository.pending(shard)).length === 1);
    await received[0]!.ack();
    release();
    await again;
    await eventually('second copy handed over', async () => received.length === 2);
    expect(received[1]?.eventId).toBe(published.eventId);
    expect(received[1]?.unrecorded).toBeUndefined();
  });

  it('hands over an event published before anyone consumed the shard', async () => {
    const shard = freshShard();
    const log = new DurableEventLog(repository);
    const published = event(shard, 'a', 'hello');
    await log.publish(published);

    const { received } = await record(log, shard);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      eventId: published.eventId,
      subject: published.subject,
      payload: published.payload,
    });
  });

  it('hands over an event published while the shard is being consumed, at once', async () => {
    const shard = freshShard();
    const log = new DurableEventLog(repository);
    const { received, ids } = await record(log, shard);

    await log.publish(event(shard, 'live', 'now'));
    expect(ids()).toEqual([`evt-${shard}-live`]);
    expect(received[0]?.payload).toEqual({ event: 'message.received', message: { id: 'live', text: 'now' } });
  });

  it("hands over only the shard's own events", async () => {
    const mine = freshShard();
    const other = freshShard();
    const log = new DurableEventLog(repository);
    await log.publish(event(other, 'before'));
    const { ids } = await record(log, mine);
    await log.publish(event(other, 'after'));
    await log.publish(event(mine, 'own'));
    expect(ids()).toEqual([`evt-${mine}-own`]);
  });

  it('hands over, oldest first, what a previous process stored but never delivered (restart)', async () => {
    const shard = freshShard();
    const before = new DurableEventLog(repository);
    for (const id of ['first', 'second', 'third']) await before.publish(event(shard, id));

    // A new process: its own connection pool, its own log.
    const pool: DataSource = createDataSource(db.url, { poolSize: 2 });
    await pool.initialize();
    try {
      const after = new DurableEventLog(new InboundEventRepository(pool));
      const { ids } = await record(after, shard);
      expect(ids()).toEqual([`evt-${shard}-first`, `evt-${shard}-second`, `evt-${shard}-third`]);
    } finally {
      await pool.destroy();
    }
  });

  it('hands an event handed over but not acknowledged to the next consumer of the shard', async () => {
    const shard = freshShard();
    const log = new DurableEventLog(repository);
    const first = await record(log, shard);
    await log.publish(event(shard, 'unacked'));
    expect(first.ids()).toEqual([`evt-${shard}-unacked`]);
    await first.consumption.stop();

    const second = await record(new DurableEventLog(repository), shard);
    expect(second.ids()).toEqual([`evt-${shard}-unacked`]);
  });

  it('stores nothing more and hands nothing over once acknowledged', async () => {
    const shard = freshShard();
    const log = new DurableEventLog(repository);
    const first = await record(log, shard);
    await log.publish(event(shard, 'done'));
    await log.publish(event(shard, 'open'));
    await first.received[0]!.ack();
    expect((await repository.pending(shard)).map((stored) => stored.eventId)).toEqual([`evt-${shard}-open`]);
    await first.consumption.stop();

    const next = await record(new DurableEventLog(repository), shard);
    expect(next.ids()).toEqual([`evt-${shard}-open`]);
  });

  it('does not hand events to a consumption that stopped; they wait for the next one', async () => {
    const shard = freshShard();
    const log = new DurableEventLog(repository);
    const stopped = await record(log, shard);
    await stopped.consumption.stop();
    await log.publish(event(shard, 'later'));
    expect(stopped.ids()).toEqual([]);

    const next = await record(log, shard);
    expect(next.ids()).toEqual([`evt-${shard}-later`]);
  });

  it('hands over an event published twice with the same id once', async () => {
    const shard = freshShard();
    const log = new DurableEventLog(repository);
    // Twice before consuming (a network redelivery while nobody consumed) ...
    await log.publish(event(shard, 'twice-stored', 'original'));
    await log.publish(event(shard, 'twice-stored', 'copy'));
    const { received, ids } = await record(log, shard);
    // ... and twice while consuming.
    await log.publish(event(shard, 'twice-live'));
    await log.publish(event(shard, 'twice-live'));
    await log.publish(event(shard, 'twice-stored', 'copy'));

    expect(ids()).toEqual([`evt-${shard}-twice-stored`, `evt-${shard}-twice-live`]);
    expect(received[0]?.payload).toMatchObject({ message: { text: 'original' } });
  });

  describe('an event published while the backlog is being read is handed over exactly once', () => {
    it('when it was stored after the backlog was read', async () => {
      const shard = freshShard();
      const store = new HeldReplyStore(repository);
      const log = new DurableEventLog(store);
      await log.publish(event(shard, 'backlog'));

      // The backlog was read (without the new event) but its reply is still on the way.
      const replyHeld = gate();
      store.holdPendingReply = replyHeld.promise;
      const received: string[] = [];
      const consuming = log.consume(shard, (delivered) => received.push(delivered.eventId));
      await eventually('the backlog to be read', () => store.backlogReads === 1);
      await log.publish(event(shard, 'racing'));
      replyHeld.open();
      consumptions.push(await consuming);

      expect(received).toEqual([`evt-${shard}-racing`, `evt-${shard}-backlog`]);
    });

    it('when its reply from the database arrives only after the backlog (which holds it) was handed over', async () => {
      // Regression: an id stays known until its event is acknowledged, so an event whose insert
      // reply arrives after the backlog (which already held it) was handed over is not handed twice.
      const shard = freshShard();
      const store = new HeldReplyStore(repository);
      const log = new DurableEventLog(store);
      const replyHeld = gate();
      store.holdAppendReply = replyHeld.promise;

      const publishing = log.publish(event(shard, 'racing'));
      await eventually('the event to be committed', () => store.appended.length === 1);
      const received: string[] = [];
      consumptions.push(await log.consume(shard, (delivered) => received.push(delivered.eventId)));
      replyHeld.open();
      await publishing;
      await delay(20);

      expect(received).toEqual([`evt-${shard}-racing`]);
    });

    it('when it was stored and handed over live before the backlog was read', async () => {
      const shard = freshShard();
      const store = new HeldReplyStore(repository);
      const log = new DurableEventLog(store);
      const pendingHeld = gate();
      store.holdPendingQuery = pendingHeld.promise;
      const received: string[] = [];
      const consuming = log.consume(shard, (delivered) => received.push(delivered.eventId));
      // Listening already (the backlog read is held): published, stored and handed over live.
      await log.publish(event(shard, 'racing'));
      expect(received).toEqual([`evt-${shard}-racing`]);
      pendingHeld.open();
      consumptions.push(await consuming);

      expect(received).toEqual([`evt-${shard}-racing`]);
    });
  });
});
