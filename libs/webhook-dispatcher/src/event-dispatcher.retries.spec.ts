import { deliveryIdForEvent } from '@jumbe/domain';
import {
  DurableEventLog,
  ensureEventStream,
  type EventConsumption,
  type EventSource,
  JetStreamEventPublisher,
  JetStreamEventSource,
  NatsMessageBus,
  type OutgoingEvent,
} from '@jumbe/messaging';
import type { InboundEventRepository, WebhookDeliveryRepository } from '@jumbe/persistence';
import { delay, eventually, failsThenSucceeds, type RecordingReceiver } from '@jumbe/testing';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { EventDispatcher, type EventDispatcherOptions } from './event-dispatcher';
import type { StreamDeliverable } from './stream-deliverable';
import {
  DispatcherTestBed,
  idOf,
  messageIds,
  messageReceivedEvent,
} from './test-support/dispatcher-test-bed';
import { WebhookPoster } from './webhook-poster';

const NATS_URL = process.env['JUMBE_TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222';

/**
 * Opt-in retries with the dispatcher's real parts: PostgreSQL (deliveries, webhooks, the
 * all-in-one event log), a real HTTP receiver that fails and then recovers, and JetStream for the
 * distributed topology. The backoff is shortened (base in milliseconds) as JUMBE_WEBHOOK_RETRY_BASE_MS does.
 */
describe('EventDispatcher retries (opt-in)', () => {
  let bed: DispatcherTestBed;
  let receiver: RecordingReceiver;
  let events: InboundEventRepository;
  let deliveries: WebhookDeliveryRepository;
  const poster = new WebhookPoster(true);
  const logger = pino({ level: 'silent' });
  const running: { dispatcher: EventDispatcher; consumption: EventConsumption }[] = [];
  // Shards of their own, apart from event-dispatcher.spec.ts's (same database, other tests).
  let nextShard = 900;

  beforeAll(async () => {
    bed = await DispatcherTestBed.open('dispatcher-retry-test-secret-key-0123456789');
    ({ receiver, events, deliveries } = bed);
  });
  afterEach(async () => {
    for (const { dispatcher, consumption } of running.splice(0)) {
      await consumption.stop();
      dispatcher.stop();
    }
  });
  afterAll(() => bed.close());

  /** An account whose webhook (its own path of the receiver) opted into `retries` retries. */
  async function account(retryAttempts: number | null): Promise<{ accountId: string; path: string }> {
    const accountId = await bed.createAccount('Retry test');
    const path = `/hooks/${accountId}`;
    await saveWebhook(accountId, path, retryAttempts);
    return { accountId, path };
  }

  const saveWebhook = (accountId: string, path: string, retryAttempts: number | null) =>
    bed.saveWebhook(accountId, `${receiver.url}${path}`, { retryAttempts });

  let nextMessage = 0;
  function inboundEvent(shard: number, accountId: string): OutgoingEvent {
    return messageReceivedEvent(shard, accountId, `RETRY${++nextMessage}-${randomBytes(3).toString('hex')}`);
  }

  /** A dispatcher consuming `shard` of `source`, as a shard owner does. */
  async function dispatch(source: EventSource, shard: number, options: Partial<EventDispatcherOptions>) {
    const dispatcher = new EventDispatcher(bed.directory, poster, deliveries, logger, {
      retryDelayMs: 20,
      ...options,
    });
    const consumption = await source.consume(shard, (event) => dispatcher.accept(event as StreamDeliverable));
    running.push({ dispatcher, consumption });
  }

  /** Kills the newest dispatcher as a crash would: no acknowledgement, nothing finished. */
  async function killNewest(): Promise<void> {
    const killed = running.pop()!;
    killed.dispatcher.stop();
    await killed.consumption.stop();
  }

  const attemptsOf = async (accountId: string) =>
    (await deliveries.latest(accountId, 20))
      .reverse()
      .map((record) => ({ id: record.id, attempt: record.attempt, status: record.status }));
  /** [attempt, status] of each recorded attempt of the account, oldest first. */
  const attemptStatuses = async (accountId: string) =>
    (await attemptsOf(accountId)).map(({ attempt, status }) => [attempt, status]);
  const logDrained = (shard: number) =>
    eventually(`shard ${shard} to be empty`, async () => (await events.pending(shard)).length === 0, 10_000);

  describe('all-in-one (the event log in PostgreSQL)', () => {
    it("retries a failed event after its backoff under the same delivery id, each attempt recorded, the session's next event behind it", async () => {
      const shard = nextShard++;
      const { accountId, path } = await account(3);
      receiver.on(path, failsThenSucceeds(2));
      const log = new DurableEventLog(events);
      await dispatch(log, shard, { retryBaseMs: 150 });

      const first = inboundEvent(shard, accountId);
      const second = inboundEvent(shard, accountId);
      await log.publish(first);
      await log.publish(second);

      const requests = await receiver.waitFor(path, 4, 10_000);
      expect(messageIds(requests)).toEqual([idOf(first), idOf(first), idOf(first), idOf(second)]);
      const firstId = deliveryIdForEvent(first.eventId);
      expect(requests.slice(0, 3).map((request) => request.headers['x-service-delivery'])).toEqual([
        firstId,
        firstId,
        firstId,
      ]);
      await logDrained(shard);
      // Backoff 150 ms, then 450 ms (base·3^(k−1)), from one attempt's start to the next.
      const startedAt = (await deliveries.latest(accountId, 20)).map((record) =>
        record.attemptedAt.getTime(),
      );
      const [, retry2, retry1, attempt1] = startedAt; // newest first
      expect(retry1! - attempt1!).toBeGreaterThanOrEqual(150);
      expect(retry2! - retry1!).toBeGreaterThanOrEqual(450);
      expect(await attemptsOf(accountId)).toEqual([
        { id: firstId, attempt: 1, status: 'failed' },
        { id: firstId, attempt: 2, status: 'failed' },
        { id: firstId, attempt: 3, status: 'success' },
        { id: deliveryIdForEvent(second.eventId), attempt: 1, status: 'success' },
      ]);
    });

    it("gives up after the retries opted into, then goes on with the session's next event", async () => {
      const shard = nextShard++;
      const { accountId, path } = await account(1);
      receiver.on(path, failsThenSucceeds(2, 500));
      const log = new DurableEventLog(events);
      await dispatch(log, shard, { retryBaseMs: 50 });

      const first = inboundEvent(shard, accountId);
      const second = inboundEvent(shard, accountId);
      await log.publish(first);
      await log.publish(second);

      expect(messageIds(await receiver.waitFor(path, 3, 10_000))).toEqual([
        idOf(first),
        idOf(first),
        idOf(second),
      ]);
      await logDrained(shard);
      await delay(200);
      expect(receiver.at(path)).toHaveLength(3);
      expect(await attemptStatuses(accountId)).toEqual([
        [1, 'failed'],
        [2, 'failed'],
        [1, 'success'],
      ]);
    });

    it('a dispatcher killed during a backoff: the next one waits out what is left and makes the next attempt, never a recorded one again', async () => {
      const shard = nextShard++;
      const { accountId, path } = await account(2);
      receiver.on(path, failsThenSucceeds(1));
      const log = new DurableEventLog(events);
      await dispatch(log, shard, { retryBaseMs: 1_500 });
      const event = inboundEvent(shard, accountId);
      await log.publish(event);
      await receiver.waitFor(path, 1, 5_000);
      await eventually('attempt 1 recorded', async () => (await attemptsOf(accountId)).length === 1);
      await killNewest();
      expect((await events.pending(shard)).map((pending) => pending.eventId)).toEqual([event.eventId]);

      await dispatch(new DurableEventLog(events), shard, { retryBaseMs: 1_500 });
      await delay(500);
      expect(receiver.at(path)).toHaveLength(1); // attempt 1 is recorded: not made again
      const [failedAt, retriedAt] = (await receiver.waitFor(path, 2, 5_000)).map(
        (request) => request.receivedAt,
      );
      expect(retriedAt! - failedAt!).toBeGreaterThanOrEqual(1_450);
      await logDrained(shard);
      expect(await attemptStatuses(accountId)).toEqual([
        [1, 'failed'],
        [2, 'success'],
      ]);
    });

    it('turning retries off while a session waits ends the wait: the event is settled with the attempts made', async () => {
      const shard = nextShard++;
      const { accountId, path } = await account(5);
      receiver.on(path, failsThenSucceeds(1));
      const log = new DurableEventLog(events);
      await dispatch(log, shard, { retryBaseMs: 60_000, backoffRecheckMs: 100 });
      const first = inboundEvent(shard, accountId);
      const second = inboundEvent(shard, accountId);
      await log.publish(first);
      await log.publish(second);
      await receiver.waitFor(path, 1, 5_000);
      await delay(300);
      expect((await events.pending(shard)).map((pending) => pending.eventId)).toEqual([
        first.eventId,
        second.eventId,
      ]);

      await saveWebhook(accountId, path, null);
      expect(messageIds(await receiver.waitFor(path, 2, 5_000))).toEqual([idOf(first), idOf(second)]);
      await logDrained(shard);
      expect(await attemptStatuses(accountId)).toEqual([
        [1, 'failed'],
        [1, 'success'],
      ]);
    });
  });

  describe('distributed (real NATS JetStream)', () => {
    const suffix = randomBytes(5).toString('hex');
    const stream = `TEST_RETRY_${suffix.toUpperCase()}`;
    const namespace = `test${suffix}.`;
    const subjectRoot = `${namespace}jumbe.v1.events`;
    /** Shorter than the backoffs below: the event must outlive several ack waits unacknowledged. */
    const ACK_WAIT_MS = 800;
    const buses: NatsMessageBus[] = [];
    let publisher: JetStreamEventPublisher;

    const source = async () => {
      const bus = await NatsMessageBus.connect(NATS_URL, `retry-test-${buses.length}`);
      buses.push(bus);
      return new JetStreamEventSource(bus.connection, { stream, subjectRoot, ackWaitMs: ACK_WAIT_MS });
    };
    const unacknowledged = async (shard: number) => await (await source()).pending(shard);

    beforeAll(async () => {
      const bus = await NatsMessageBus.connect(NATS_URL, 'retry-test-publisher');
      buses.push(bus);
      await ensureEventStream(bus.connection, { name: stream, subjectRoot, duplicateWindowMs: 60_000 });
      publisher = new JetStreamEventPublisher(bus.connection, namespace);
    });
    afterAll(async () => {
      await (await buses[0]!.connection.jetstreamManager()).streams.delete(stream).catch(() => undefined);
      await Promise.all(buses.map((bus) => bus.close()));
    });

    it('keeps a retried event unacknowledged through backoffs longer than the ack wait, and POSTs each attempt once', async () => {
      const shard = nextShard++;
      const { accountId, path } = await account(2);
      receiver.on(path, failsThenSucceeds(1));
      await dispatch(await source(), shard, { retryBaseMs: 2_000 });
      const event = inboundEvent(shard, accountId);
      await publisher.publish(event);

      await receiver.waitFor(path, 2, 8_000);
      await eventually('acknowledged', async () => (await unacknowledged(shard)) === 0, 5_000);
      await delay(ACK_WAIT_MS * 2);
      expect(receiver.at(path)).toHaveLength(2);
      expect(await attemptStatuses(accountId)).toEqual([
        [1, 'failed'],
        [2, 'success'],
      ]);
    });

    it("a dispatcher killed during a backoff: the shard's next owner makes the next attempt after the rest of it, once", async () => {
      const shard = nextShard++;
      const { accountId, path } = await account(2);
      receiver.on(path, failsThenSucceeds(1));
      await dispatch(await source(), shard, { retryBaseMs: 2_000 });
      const event = inboundEvent(shard, accountId);
      await publisher.publish(event);
      await receiver.waitFor(path, 1, 5_000);
      await eventually('attempt 1 recorded', async () => (await attemptsOf(accountId)).length === 1);
      await killNewest();

      await dispatch(await source(), shard, { retryBaseMs: 2_000 });
      await delay(500);
      expect(receiver.at(path)).toHaveLength(1);
      const [failedAt, retriedAt] = (await receiver.waitFor(path, 2, 6_000)).map(
        (request) => request.receivedAt,
      );
      expect(retriedAt! - failedAt!).toBeGreaterThanOrEqual(1_950);
      await eventually('acknowledged', async () => (await unacknowledged(shard)) === 0, 5_000);
      expect(receiver.at(path)).toHaveLength(2);
      expect(await attemptStatuses(accountId)).toEqual([
        [1, 'failed'],
        [2, 'success'],
      ]);
    });
  });
});
