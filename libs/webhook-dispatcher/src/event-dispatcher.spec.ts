import {
  DurableEventLog,
  type EventConsumption,
  type EventLogStore,
  type OutgoingEvent,
} from '@jumbe/messaging';
import {
  type DeliveryRecord,
  type InboundEventRepository,
  type WebhookDeliveryRepository,
} from '@jumbe/persistence';
import { inboundEventSubject, sessionEventId } from '@jumbe/contracts';
import { deliveryIdForEvent } from '@jumbe/domain';
import { closedPort, delay, eventually, type RecordingReceiver } from '@jumbe/testing';
import { verifyDelivery } from '@jumbe/webhook-receiver';
import type { ServerResponse } from 'node:http';
import pino from 'pino';
import { EventDispatcher, type EventDispatcherOptions } from './event-dispatcher';
import type { StreamDeliverable } from './stream-deliverable';
import {
  DispatcherTestBed,
  idOf,
  messageIds,
  messageReceivedEvent,
} from './test-support/dispatcher-test-bed';
import type { WebhookDirectory } from './webhook-directory';
import { WebhookPoster } from './webhook-poster';

/**
 * The dispatcher with its real parts: the all-in-one durable event log over the inbound_events
 * table, the webhook directory over the webhooks table (secrets sealed with the webhook purpose),
 * a real poster (private networks allowed, so it may reach 127.0.0.1), the deliveries table, and
 * a real HTTP receiver. Nothing here is a stand-in except where a test says so.
 */
describe('EventDispatcher', () => {
  let bed: DispatcherTestBed;
  let receiver: RecordingReceiver;
  let events: InboundEventRepository;
  let deliveries: WebhookDeliveryRepository;
  let directory: WebhookDirectory;
  const poster = new WebhookPoster(true);
  const warnings: { msg: string; eventId?: string }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
  const running: { dispatcher: EventDispatcher; consumption: EventConsumption }[] = [];
  let nextShard = 0;
  let nextMessage = 0;
  const UNRECORDED_PER_SESSION = 4;
  /** Several record batches may commit at once, as in production. */
  const CONCURRENT_RECORDS = 2;

  beforeAll(async () => {
    bed = await DispatcherTestBed.open('dispatcher-test-secret-key-0123456789');
    ({ receiver, events, deliveries, directory } = bed);
  });
  afterEach(async () => {
    for (const { dispatcher, consumption } of running.splice(0)) {
      await consumption.stop();
      dispatcher.stop();
    }
    warnings.length = 0;
  });
  afterAll(() => bed.close());

  /** Each test uses its own shards, so one test's leftovers never reach another's consumer. */
  const freshShard = () => nextShard++;

  const createAccount = () => bed.createAccount('Dispatch test');
  /** Saves the account's webhook as the gateway does: secret sealed, invalidation published. */
  const saveWebhook = (accountId: string, url: string, enabled = true) =>
    bed.saveWebhook(accountId, url, { enabled });

  /** An account with an enabled webhook pointing at its own path of the receiver. */
  async function subscribedAccount(): Promise<{ accountId: string; path: string; secret: string }> {
    const accountId = await createAccount();
    const path = `/hooks/${accountId}`;
    const secret = await saveWebhook(accountId, `${receiver.url}${path}`);
    return { accountId, path, secret };
  }

  function inboundEvent(shard: number, accountId: string, sessionId = 'main'): OutgoingEvent {
    const messageId = `MSG${++nextMessage}`;
    const timestamp = new Date(Date.UTC(2030, 0, 1, 12, 0, 0, nextMessage));
    return messageReceivedEvent(shard, accountId, messageId, { sessionId, timestamp });
  }

  /** Consumes `shard` of a durable log over `store` into a new dispatcher, as a shard owner does. */
  async function dispatchShard(
    shard: number,
    options: {
      store?: EventLogStore;
      deliveries?: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'>;
      slots?: Pick<EventDispatcherOptions, 'maxParallelPosts' | 'maxPostsPerAccount'>;
      unrecordedPerSession?: number;
    } = {},
  ): Promise<DurableEventLog> {
    const log = new DurableEventLog(options.store ?? events);
    const dispatcher = new EventDispatcher(directory, poster, options.deliveries ?? deliveries, logger, {
      retryDelayMs: 20,
      maxRecordTries: 3,
      maxUnrecordedPerSession: options.unrecordedPerSession ?? UNRECORDED_PER_SESSION,
      concurrentRecords: CONCURRENT_RECORDS,
      ...options.slots,
    });
    // Straight to the dispatcher, past the shard owner's schema check: these bodies are abridged.
    const consumption = await log.consume(shard, (event) => dispatcher.accept(event as StreamDeliverable));
    running.push({ dispatcher, consumption });
    return log;
  }

  const logDrained = (shard: number, timeoutMs = 10_000) =>
    eventually(
      `shard ${shard} to be empty`,
      async () => (await events.pending(shard)).length === 0,
      timeoutMs,
    );

  it("delivers a session's events in publish order, one at a time, even when the first answers are slow", async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    const answeredAt: number[] = [];
    const answerDelays = [400, 250, 100];
    receiver.on(path, (_request, response) => {
      const n = answeredAt.length;
      answeredAt.push(Number.NaN);
      setTimeout(() => {
        answeredAt[n] = Date.now();
        response.end('ok');
      }, answerDelays[n] ?? 0);
    });
    const log = await dispatchShard(shard);

    const published = Array.from({ length: 6 }, () => inboundEvent(shard, accountId));
    for (const event of published) await log.publish(event);

    const requests = await receiver.waitFor(path, 6, 10_000);
    expect(messageIds(requests)).toEqual(published.map(idOf));
    // The next event goes out only once the receiver answered the previous one.
    for (let i = 1; i < requests.length; i++) {
      expect(requests[i]!.receivedAt).toBeGreaterThanOrEqual(answeredAt[i - 1]!);
    }
    await logDrained(shard);
    expect(await deliveries.latest(accountId, 10)).toHaveLength(6);
  });

  it("keeps the order of a session's backlog too (events stored before the shard was taken up)", async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    const backlog = Array.from({ length: 4 }, () => inboundEvent(shard, accountId));
    for (const event of backlog) await events.append(event);
    await dispatchShard(shard);

    expect(messageIds(await receiver.waitFor(path, 4, 10_000))).toEqual(backlog.map(idOf));
    await logDrained(shard);
  });

  it('does not let a slow receiver of account A hold up account B', async () => {
    const shard = freshShard();
    const a = await subscribedAccount();
    const b = await subscribedAccount();
    const held: ServerResponse[] = [];
    let holding = true;
    receiver.on(a.path, (_request, response) => {
      if (holding) held.push(response);
      else response.end('ok');
    });
    const log = await dispatchShard(shard);

    const a1 = inboundEvent(shard, a.accountId);
    const a2 = inboundEvent(shard, a.accountId);
    const b1 = inboundEvent(shard, b.accountId);
    await log.publish(a1);
    await log.publish(a2);
    await log.publish(b1);

    // B is delivered, recorded and acknowledged while A's first delivery is still unanswered.
    expect(messageIds(await receiver.waitFor(b.path, 1, 5_000))).toEqual([idOf(b1)]);
    await eventually('B recorded', () => deliveries.isRecorded(b1.eventId));
    expect((await events.pending(shard)).map((event) => event.eventId)).toEqual([a1.eventId, a2.eventId]);
    expect(receiver.at(a.path)).toHaveLength(1);

    holding = false;
    for (const response of held.splice(0)) response.end('ok');
    expect(messageIds(await receiver.waitFor(a.path, 2, 5_000))).toEqual([idOf(a1), idOf(a2)]);
    await logDrained(shard);
  });

  it("holds a hung receiver's account to its share of the posts, so another account is delivered meanwhile", async () => {
    const shard = freshShard();
    const a = await subscribedAccount();
    const b = await subscribedAccount();
    const held: ServerResponse[] = [];
    receiver.on(a.path, (_request, response) => void held.push(response));
    // Four posts at once over all accounts, two per account: A's six sessions can fill only two.
    const log = await dispatchShard(shard, { slots: { maxParallelPosts: 4, maxPostsPerAccount: 2 } });

    const aEvents = Array.from({ length: 6 }, (_, i) => inboundEvent(shard, a.accountId, `a-${i}`));
    for (const event of aEvents) await log.publish(event);
    await receiver.waitFor(a.path, 2, 5_000);
    const b1 = inboundEvent(shard, b.accountId);
    await log.publish(b1);

    // B goes out while every one of A's posts is still unanswered, and A never got past its share.
    expect(messageIds(await receiver.waitFor(b.path, 1, 3_000))).toEqual([idOf(b1)]);
    await eventually('B recorded', () => deliveries.isRecorded(b1.eventId));
    expect(held).toHaveLength(2);
    expect(receiver.at(a.path)).toHaveLength(2);

    // As A's receiver answers, its other sessions go out, each once.
    receiver.on(a.path, (_request, response) => void response.end('ok'));
    for (const response of held.splice(0)) response.end('ok');
    const all = await receiver.waitFor(a.path, aEvents.length, 5_000);
    expect(messageIds(all).sort()).toEqual(aEvents.map(idOf).sort());
    await logDrained(shard);
  });

  it('leaves events still waiting for a POST slot unsent when their shard is let go, and finishes the one in hand', async () => {
    const shard = freshShard();
    const a = await subscribedAccount();
    const held: ServerResponse[] = [];
    receiver.on(a.path, (_request, response) => void held.push(response));
    // One post of A at a time: its other two sessions wait for that slot.
    const log = await dispatchShard(shard, { slots: { maxParallelPosts: 4, maxPostsPerAccount: 1 } });
    const { dispatcher, consumption } = running.at(-1)!;
    const aEvents = Array.from({ length: 3 }, (_, i) => inboundEvent(shard, a.accountId, `a-${i}`));
    for (const event of aEvents) await log.publish(event);
    const [inHand] = messageIds(await receiver.waitFor(a.path, 1, 5_000));

    // The shard is let go as DispatcherShardOwner.drop does it: consumption stopped, queue forgotten.
    await consumption.stop();
    dispatcher.forgetWhere(() => true);
    const finished = dispatcher.finishInHand(() => true);
    receiver.on(a.path, (_request, response) => void response.end('ok'));
    for (const response of held.splice(0)) response.end('ok');
    await finished;

    // Only the delivery in hand went out (recorded, acknowledged); the others are the next owner's, unsent.
    expect(messageIds(receiver.at(a.path))).toEqual([inHand]);
    // Giving up a turn is no failure: nothing says a delivery could not be prepared.
    expect(warnings).toEqual([]);
    const sent = aEvents.find((event) => idOf(event) === inHand)!;
    expect(await deliveries.isRecorded(sent.eventId)).toBe(true);
    expect((await events.pending(shard)).map((event) => event.eventId).sort()).toEqual(
      aEvents
        .filter((event) => event !== sent)
        .map((event) => event.eventId)
        .sort(),
    );
  });

  it('acknowledges the events of a disabled or missing webhook without a request or a record', async () => {
    const shard = freshShard();
    const disabled = await createAccount();
    const disabledPath = `/hooks/${disabled}`;
    await saveWebhook(disabled, `${receiver.url}${disabledPath}`, false);
    const missing = await createAccount();
    // A subscribed account in the same shard shows the dispatcher is at work meanwhile.
    const control = await subscribedAccount();
    const log = await dispatchShard(shard);

    await log.publish(inboundEvent(shard, disabled));
    await log.publish(inboundEvent(shard, missing));
    await log.publish(inboundEvent(shard, control.accountId));
    await logDrained(shard);

    expect(receiver.at(control.path)).toHaveLength(1);
    expect(receiver.at(disabledPath)).toEqual([]);
    expect(receiver.requests.filter((request) => request.json?.customerId === missing)).toEqual([]);
    expect(await deliveries.latest(disabled, 10)).toEqual([]);
    expect(await deliveries.latest(missing, 10)).toEqual([]);
  });

  it('acknowledges without a second request an event whose delivery is already recorded', async () => {
    // A dispatcher delivered and recorded the event, then died before acknowledging it: the
    // event is still in the log when the shard's next owner takes it up.
    const shard = freshShard();
    const { accountId, path, secret } = await subscribedAccount();
    const event = inboundEvent(shard, accountId);
    await events.append(event);
    const earlier = await poster.post({
      accountId,
      eventId: event.eventId,
      deliveryId: deliveryIdForEvent(event.eventId),
      url: `${receiver.url}${path}`,
      secret,
      payload: event.payload as DeliveryRecord['payload'] & {
        event: string;
        sessionId: string;
        timestamp: string;
      },
    });
    await deliveries.record(earlier);
    expect(receiver.at(path)).toHaveLength(1);

    await dispatchShard(shard);
    await logDrained(shard);

    await delay(200);
    expect(receiver.at(path)).toHaveLength(1);
    expect((await deliveries.latest(accountId, 10)).map((delivery) => delivery.id)).toEqual([earlier.id]);
  });

  it('POSTs a live event without asking whether it was recorded; one published again after its record is asked about and not POSTed', async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    const asked: string[] = [];
    const counting = {
      recordBatch: deliveries.recordBatch.bind(deliveries),
      lastAttemptsAmong: (eventIds: string[]) => {
        asked.push(...eventIds);
        return deliveries.lastAttemptsAmong(eventIds);
      },
    };
    const log = await dispatchShard(shard, { deliveries: counting });
    const event = inboundEvent(shard, accountId);
    await log.publish(event);
    await logDrained(shard);
    expect(receiver.at(path)).toHaveLength(1);
    expect(asked).toEqual([]);

    // The same message published again once its delivery was recorded and left the log (the
    // network handing it over a second time).
    await delay(100);
    await log.publish(event);
    await logDrained(shard);
    await delay(200);
    expect(receiver.at(path)).toHaveLength(1);
    expect(asked).toEqual([event.eventId]);
  });

  it('records each delivery under the deterministic delivery id before the event leaves the log', async () => {
    const shard = freshShard();
    const { accountId, path, secret } = await subscribedAccount();
    const recordedWhenRemoved = new Map<string, boolean>();
    // Observes the log's real store: at the moment an event is removed, is its delivery recorded?
    const observed: EventLogStore = {
      append: (event) => events.append(event),
      pending: (s) => events.pending(s),
      removeAll: async (eventIds) => {
        for (const eventId of eventIds) {
          recordedWhenRemoved.set(eventId, await deliveries.isRecorded(eventId));
        }
        await events.removeAll(eventIds);
      },
    };
    const log = await dispatchShard(shard, { store: observed });
    const published = [inboundEvent(shard, accountId), inboundEvent(shard, accountId, 'sales')];
    for (const event of published) await log.publish(event);

    await logDrained(shard);
    expect(await events.pending(shard)).toEqual([]);
    // Acknowledgements reach the store in batches gathered over a few milliseconds.
    await eventually('both acknowledged', async () =>
      published.every((event) => recordedWhenRemoved.has(event.eventId)),
    );

    for (const event of published) {
      const deliveryId = deliveryIdForEvent(event.eventId);
      expect(recordedWhenRemoved.get(event.eventId)).toBe(true);

      const request = receiver.at(path).find((r) => r.json.message.id === idOf(event))!;
      expect(request.headers['x-service-delivery']).toBe(deliveryId);
      expect(request.headers['x-service-event']).toBe('message.received');
      const verified = verifyDelivery({ body: request.raw, headers: request.headers, secret });
      expect(verified.deliveryId).toBe(deliveryId);
      expect(verified.payload).toEqual({ ...(event.payload as object), deliveryId });

      const record = await deliveries.find(accountId, deliveryId);
      expect(record).toMatchObject({
        id: deliveryId,
        accountId,
        eventId: event.eventId,
        event: 'message.received',
        sessionId: (event.payload as { sessionId: string }).sessionId,
        url: `${receiver.url}${path}`,
        status: 'success',
        statusCode: 200,
        error: null,
        response: 'ok',
        payload: { ...(event.payload as object), deliveryId },
        createdAt: new Date((event.payload as { timestamp: string }).timestamp),
      });
    }
  });

  it('records a receiver failure (500) as failed and still acknowledges the event, without retrying', async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    receiver.on(path, (_request, response) => {
      response.statusCode = 500;
      response.end('receiver exploded');
    });
    const log = await dispatchShard(shard);
    const event = inboundEvent(shard, accountId);
    await log.publish(event);

    await logDrained(shard);
    await delay(1_500); // longer than the dispatcher's retry delay
    expect(receiver.at(path)).toHaveLength(1);
    const records = await deliveries.latest(accountId, 10);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      id: deliveryIdForEvent(event.eventId),
      eventId: event.eventId,
      status: 'failed',
      statusCode: 500,
      error: 'receiver answered 500',
      response: 'receiver exploded',
    });
  });

  it('records an unreachable receiver as failed with no status code and acknowledges the event', async () => {
    const shard = freshShard();
    const accountId = await createAccount();
    await saveWebhook(accountId, `http://127.0.0.1:${await closedPort()}/hook`);
    const log = await dispatchShard(shard);
    const event = inboundEvent(shard, accountId);
    await log.publish(event);

    await logDrained(shard);
    const records = await deliveries.latest(accountId, 10);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      eventId: event.eventId,
      status: 'failed',
      statusCode: null,
      response: null,
    });
    expect(records[0]!.error).toEqual(expect.any(String));
  });

  it('uses a webhook saved meanwhile for the next event (the saved URL, at once)', async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    const log = await dispatchShard(shard);
    await log.publish(inboundEvent(shard, accountId));
    await receiver.waitFor(path, 1, 5_000);

    const movedPath = `${path}/moved`;
    await saveWebhook(accountId, `${receiver.url}${movedPath}`);
    const next = inboundEvent(shard, accountId);
    await log.publish(next);
    expect(messageIds(await receiver.waitFor(movedPath, 1, 5_000))).toEqual([idOf(next)]);
    await logDrained(shard);
    expect(receiver.at(path)).toHaveLength(1);
  });

  // Regression: when recording fails, the retry records the attempt already made; the event is POSTed once.
  it('retries an event whose delivery could not be recorded, and delivers and records it once', async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    let recordCalls = 0;
    // The edge fake: the deliveries table refuses the first write (a dropped connection).
    const flakyDeliveries: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: async (records, settled) => {
        recordCalls += 1;
        if (recordCalls === 1) throw new Error('Connection terminated unexpectedly');
        return deliveries.recordBatch(records, settled);
      },
      lastAttemptsAmong: (eventIds) => deliveries.lastAttemptsAmong(eventIds),
    };
    const log = await dispatchShard(shard, { deliveries: flakyDeliveries });
    const event = inboundEvent(shard, accountId);
    await log.publish(event);

    await logDrained(shard, 10_000);
    expect(recordCalls).toBe(2);
    expect(warnings).toEqual([
      expect.objectContaining({ msg: 'delivery could not be recorded; retrying', eventId: event.eventId }),
    ]);
    const records = await deliveries.latest(accountId, 10);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ id: deliveryIdForEvent(event.eventId), status: 'success' });
    const requests = receiver.at(path);
    // Whatever reached the receiver carries the one delivery id it can de-duplicate on…
    expect(new Set(requests.map((request) => request.headers['x-service-delivery']))).toEqual(
      new Set([deliveryIdForEvent(event.eventId)]),
    );
    // …and it reached it once.
    expect(requests).toHaveLength(1);
  });

  it('records an attempt the database keeps refusing without its response and payload, and moves on', async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    // The edge fake: the deliveries table refuses every record that still carries the payload.
    const refusingDeliveries: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: async (records, settled) => {
        if (records.some((record) => (record.payload as { unrecordable?: boolean }).unrecordable !== true)) {
          throw new Error('unsupported Unicode escape sequence');
        }
        return deliveries.recordBatch(records, settled);
      },
      lastAttemptsAmong: (eventIds) => deliveries.lastAttemptsAmong(eventIds),
    };
    const log = await dispatchShard(shard, { deliveries: refusingDeliveries });
    const first = inboundEvent(shard, accountId);
    const second = inboundEvent(shard, accountId);
    await log.publish(first);
    await log.publish(second);

    await logDrained(shard, 10_000);
    expect(messageIds(receiver.at(path))).toEqual([idOf(first), idOf(second)]);
    const records = await deliveries.latest(accountId, 10);
    expect(records).toHaveLength(2);
    expect(records.find((record) => record.id === deliveryIdForEvent(first.eventId))).toMatchObject({
      status: 'success',
      response: null,
      error: expect.stringContaining('unsupported Unicode escape sequence'),
    });
    // The error as GET /webhook shows it: why the response and payload are missing, said once.
    expect(records.find((record) => record.id === deliveryIdForEvent(first.eventId))?.error).toBe(
      'the attempt was recorded without its response and payload, which the database refused: unsupported Unicode escape sequence',
    );
  });
  it("delivers different sessions in parallel, each session's events in publish order, recorded in batches", async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    const sessions = Array.from({ length: 10 }, (_, i) => `line${i}`);
    let inFlight = 0;
    let mostInFlight = 0;
    receiver.on(path, (_request, response) => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      setTimeout(
        () => {
          inFlight -= 1;
          response.end('ok');
        },
        Math.floor(Math.random() * 15),
      );
    });
    // The first writes (as many as may overlap) wait until every session has POSTed once: the
    // attempts of the sessions they do not hold can then only be recorded together, in the next.
    const batchSizes: number[] = [];
    const everySessionPosted = () =>
      eventually('every session to post', async () => {
        return new Set(receiver.at(path).map((request) => request.json.sessionId)).size === sessions.length;
      });
    const observed: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: async (records, settled) => {
        batchSizes.push(records.length);
        // (plus the time for the receiver's answers, at most 15 ms, to reach the dispatcher)
        if (batchSizes.length <= CONCURRENT_RECORDS) await everySessionPosted().then(() => delay(300));
        return deliveries.recordBatch(records, settled);
      },
      lastAttemptsAmong: (eventIds) => deliveries.lastAttemptsAmong(eventIds),
    };
    const log = await dispatchShard(shard, { deliveries: observed });

    const published = Array.from({ length: 8 }, () =>
      sessions.map((s) => inboundEvent(shard, accountId, s)),
    ).flat();
    // Each session publishes its messages one after another (as a session's network does), the
    // sessions at the same time.
    const ofSession = (session: string) =>
      published.filter((event) => (event.payload as { sessionId: string }).sessionId === session);
    await Promise.all(
      sessions.map(async (session) => {
        for (const event of ofSession(session)) await log.publish(event);
      }),
    );

    const requests = await receiver.waitFor(path, published.length, 10_000);
    for (const session of sessions) {
      const sent = ofSession(session);
      const received = requests.filter((request) => request.json.sessionId === session);
      expect(messageIds(received)).toEqual(sent.map(idOf));
    }
    expect(mostInFlight).toBeGreaterThan(1);
    await logDrained(shard);
    expect(await deliveries.latest(accountId, 100)).toHaveLength(published.length);
    expect(batchSizes.reduce((sum, size) => sum + size, 0)).toBe(published.length);
    // The first writes after the held ones hold every session's first attempt between them.
    expect(Math.max(...batchSizes.slice(0, CONCURRENT_RECORDS + 1))).toBeGreaterThanOrEqual(
      sessions.length / 2,
    );
  });

  it('a dispatcher killed between the POST and its record: the next owner POSTs it again once, same delivery id', async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    // The first dispatcher's record never commits: it dies with the attempt made and unrecorded.
    const dying: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: () => new Promise<void>(() => undefined),
      lastAttemptsAmong: (eventIds) => deliveries.lastAttemptsAmong(eventIds),
    };
    const log = await dispatchShard(shard, { deliveries: dying });
    const event = inboundEvent(shard, accountId);
    await log.publish(event);
    await receiver.waitFor(path, 1, 5_000);
    const killed = running.pop()!;
    await killed.consumption.stop();
    killed.dispatcher.stop();
    expect((await events.pending(shard)).map((pending) => pending.eventId)).toEqual([event.eventId]);

    await dispatchShard(shard);
    await logDrained(shard);
    // A third owner finds nothing left to send.
    await dispatchShard(shard);
    await delay(200);

    const requests = receiver.at(path);
    expect(requests).toHaveLength(2);
    expect(requests.map((request) => request.headers['x-service-delivery'])).toEqual([
      deliveryIdForEvent(event.eventId),
      deliveryIdForEvent(event.eventId),
    ]);
    expect((await deliveries.latest(accountId, 10)).map((record) => record.id)).toEqual([
      deliveryIdForEvent(event.eventId),
    ]);
  });

  it('while the database refuses every write, a session stops after a few unrecorded attempts, then catches up in order', async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    let databaseDown = true;
    const outage: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: async (records, settled) => {
        if (databaseDown) throw new Error('Connection terminated unexpectedly');
        return deliveries.recordBatch(records, settled);
      },
      lastAttemptsAmong: (eventIds) => deliveries.lastAttemptsAmong(eventIds),
    };
    const log = await dispatchShard(shard, { deliveries: outage });
    const published = Array.from({ length: 10 }, () => inboundEvent(shard, accountId));
    for (const event of published) await log.publish(event);

    await receiver.waitFor(path, UNRECORDED_PER_SESSION, 5_000);
    await delay(300);
    expect(receiver.at(path)).toHaveLength(UNRECORDED_PER_SESSION);
    expect(await events.pending(shard)).toHaveLength(published.length);

    databaseDown = false;
    await logDrained(shard);
    expect(messageIds(receiver.at(path))).toEqual(published.map(idOf));
    expect(await deliveries.latest(accountId, 20)).toHaveLength(published.length);
  });

  it('a dispatcher stopped while the database refuses its record leaves the event unacknowledged: the next owner delivers and records it', async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    const outage: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: async () => {
        throw new Error('Connection terminated unexpectedly');
      },
      lastAttemptsAmong: (eventIds) => deliveries.lastAttemptsAmong(eventIds),
    };
    const log = await dispatchShard(shard, { deliveries: outage });
    const event = inboundEvent(shard, accountId);
    await log.publish(event);
    await receiver.waitFor(path, 1, 5_000);
    await eventually('the record refused', () =>
      warnings.some((warning) => warning.msg === 'delivery could not be recorded; retrying'),
    );

    const stopped = running.pop()!;
    await stopped.consumption.stop();
    stopped.dispatcher.stop();
    // Many times the record's retry delay: the stopped dispatcher has given the record up by now.
    await delay(500);
    // Neither recorded nor acknowledged: the event is still the stream's, to be offered again.
    expect((await events.pending(shard)).map((pending) => pending.eventId)).toEqual([event.eventId]);

    await dispatchShard(shard);
    await logDrained(shard);
    const requests = receiver.at(path);
    expect(requests.map((request) => request.headers['x-service-delivery'])).toEqual([
      deliveryIdForEvent(event.eventId),
      deliveryIdForEvent(event.eventId),
    ]);
    expect(await deliveries.latest(accountId, 10)).toEqual([
      expect.objectContaining({ id: deliveryIdForEvent(event.eventId), status: 'success' }),
    ]);
  });

  it('an event of a shard let go while it waits for room is neither sent nor acknowledged by this dispatcher', async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    // The first record waits for the test, so the session's next event waits for room meanwhile.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const settledIds: string[] = [];
    const held: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: async (records, settled) => {
        await released;
        settledIds.push(...settled);
        return deliveries.recordBatch(records, settled);
      },
      lastAttemptsAmong: (eventIds) => deliveries.lastAttemptsAmong(eventIds),
    };
    const log = await dispatchShard(shard, { deliveries: held, unrecordedPerSession: 1 });
    const { dispatcher, consumption } = running.at(-1)!;
    const first = inboundEvent(shard, accountId);
    // The session's next event is one its webhook does not subscribe to: its owner acknowledges
    // it without a POST, so only the acknowledgement can tell which dispatcher took it up.
    const next: OutgoingEvent = {
      eventId: sessionEventId(accountId, 'main', 'session.status', `connected-${++nextMessage}`),
      subject: inboundEventSubject(shard, accountId, 'main'),
      shard,
      payload: {
        event: 'session.status',
        timestamp: new Date().toISOString(),
        customerId: accountId,
        sessionId: 'main',
        session: { state: 'connected', phoneNumber: '254712345678', reason: null },
      },
    };
    await log.publish(first);
    await log.publish(next);
    await receiver.waitFor(path, 1, 5_000);

    // Let go as DispatcherShardOwner.drop does it, while the first record is still being written.
    await consumption.stop();
    dispatcher.forgetWhere(() => true);
    const finished = dispatcher.finishInHand(() => true);
    release();
    await finished;
    // Time for the session's drain to go on past the record it waited for.
    await delay(500);

    expect(settledIds).toEqual([first.eventId]);
    expect((await events.pending(shard)).map((pending) => pending.eventId)).toEqual([next.eventId]);
    // The next owner acknowledges it, and sends nothing more.
    await dispatchShard(shard);
    await logDrained(shard);
    expect(messageIds(receiver.at(path))).toEqual([idOf(first)]);
  });

  it('acknowledges the delivery in hand when its shard is let go, once it is recorded', async () => {
    const { accountId, path } = await subscribedAccount();
    const answers: ServerResponse[] = [];
    receiver.on(path, (_request, response) => void answers.push(response));
    const dispatcher = new EventDispatcher(directory, poster, deliveries, logger, { retryDelayMs: 20 });
    running.push({ dispatcher, consumption: { stop: async () => undefined } });
    const published = inboundEvent(freshShard(), accountId);
    const acks: string[] = [];
    // Handed over as a stream hands it (JetStream: the stream, not the record, forgets it on ack).
    dispatcher.accept({
      eventId: published.eventId,
      subject: published.subject,
      payload: published.payload,
      ack: async () => void acks.push(published.eventId),
      working: async () => undefined,
    } as StreamDeliverable);
    await receiver.waitFor(path, 1, 5_000);

    dispatcher.forgetWhere(() => true);
    const finished = dispatcher.finishInHand(() => true);
    answers.splice(0).forEach((response) => response.end('ok'));
    await finished;

    expect(await deliveries.isRecorded(published.eventId)).toBe(true);
    expect(acks).toEqual([published.eventId]);
  });

  it('asks again, with a warning, when the already-recorded check fails, then delivers the event once', async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    let asks = 0;
    const flaky: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: (records, settled) => deliveries.recordBatch(records, settled),
      lastAttemptsAmong: async (eventIds) => {
        asks += 1;
        if (asks === 1) throw new Error('Connection terminated unexpectedly');
        return deliveries.lastAttemptsAmong(eventIds);
      },
    };
    // Stored before the shard is taken up: the log does not prove it unrecorded, so it is checked.
    const event = inboundEvent(shard, accountId);
    await events.append(event);
    await dispatchShard(shard, { deliveries: flaky });

    await logDrained(shard);
    expect(asks).toBe(2);
    expect(warnings).toEqual([
      expect.objectContaining({ msg: 'delivery could not be prepared; retrying', eventId: event.eventId }),
    ]);
    expect(messageIds(receiver.at(path))).toEqual([idOf(event)]);
    expect(await deliveries.latest(accountId, 10)).toEqual([
      expect.objectContaining({ id: deliveryIdForEvent(event.eventId), status: 'success' }),
    ]);
  });

  it('records an attempt without its response and payload after exactly maxRecordTries refusals', async () => {
    const shard = freshShard();
    const { accountId } = await subscribedAccount();
    // The edge fake: the deliveries table refuses every record that still carries the payload.
    let refusedWhole = 0;
    const refusing: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: async (records, settled) => {
        if (records.some((record) => (record.payload as { unrecordable?: boolean }).unrecordable !== true)) {
          refusedWhole += 1;
          throw new Error('unsupported Unicode escape sequence');
        }
        return deliveries.recordBatch(records, settled);
      },
      lastAttemptsAmong: (eventIds) => deliveries.lastAttemptsAmong(eventIds),
    };
    // One event alone: each try is one write (a failed batch of several is retried item by item).
    const log = await dispatchShard(shard, { deliveries: refusing });
    await log.publish(inboundEvent(shard, accountId));

    await logDrained(shard);
    expect(refusedWhole).toBe(3); // dispatchShard's maxRecordTries
    expect(await deliveries.latest(accountId, 10)).toEqual([
      expect.objectContaining({ status: 'success', response: null, payload: { unrecordable: true } }),
    ]);
  });

  it("keeps the receiver's failure first in the error of an attempt recorded without its response and payload", async () => {
    const shard = freshShard();
    const { accountId, path } = await subscribedAccount();
    receiver.on(path, (_request, response) => {
      response.statusCode = 500;
      response.end('receiver exploded');
    });
    // The edge fake: the deliveries table refuses every record that still carries the payload.
    const refusing: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: async (records, settled) => {
        if (records.some((record) => (record.payload as { unrecordable?: boolean }).unrecordable !== true)) {
          throw new Error('unsupported Unicode escape sequence');
        }
        return deliveries.recordBatch(records, settled);
      },
      lastAttemptsAmong: (eventIds) => deliveries.lastAttemptsAmong(eventIds),
    };
    const log = await dispatchShard(shard, { deliveries: refusing });
    await log.publish(inboundEvent(shard, accountId));

    await logDrained(shard);
    expect(await deliveries.latest(accountId, 10)).toEqual([
      expect.objectContaining({
        status: 'failed',
        statusCode: 500,
        response: null,
        error:
          'receiver answered 500; the attempt was recorded without its response and payload, which the database refused: unsupported Unicode escape sequence',
      }),
    ]);
  });

  it('while the database is down past the record tries, the attempt is recorded once it is back, the reason said once', async () => {
    const shard = freshShard();
    const { accountId } = await subscribedAccount();
    // Down for more writes than the record tries (3): the attempt without its payload is refused too.
    let writes = 0;
    const outage: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: async (records, settled) => {
        writes += 1;
        if (writes <= 5) throw new Error('Connection terminated unexpectedly');
        return deliveries.recordBatch(records, settled);
      },
      lastAttemptsAmong: (eventIds) => deliveries.lastAttemptsAmong(eventIds),
    };
    const log = await dispatchShard(shard, { deliveries: outage });
    const event = inboundEvent(shard, accountId);
    await log.publish(event);

    await logDrained(shard);
    expect(writes).toBe(6);
    expect(await deliveries.latest(accountId, 10)).toEqual([
      expect.objectContaining({
        id: deliveryIdForEvent(event.eventId),
        status: 'success',
        response: null,
        error:
          'the attempt was recorded without its response and payload, which the database refused: Connection terminated unexpectedly',
      }),
    ]);
  });

  it('warns when an acknowledgement fails, and acknowledges the copy the stream offers again without a second POST', async () => {
    const { accountId, path } = await subscribedAccount();
    const dispatcher = new EventDispatcher(directory, poster, deliveries, logger, { retryDelayMs: 20 });
    running.push({ dispatcher, consumption: { stop: async () => undefined } });
    const published = inboundEvent(freshShard(), accountId);
    const acks: string[] = [];
    // Handed over as JetStream hands it: the stream forgets it only when acknowledged.
    const copy = (ack: () => Promise<void>) =>
      ({
        eventId: published.eventId,
        subject: published.subject,
        payload: published.payload,
        ack,
        working: async () => undefined,
      }) as StreamDeliverable;
    dispatcher.accept(
      copy(async () => {
        throw new Error('connection closed');
      }),
    );
    await eventually('the failed acknowledgement reported', () =>
      warnings.some((warning) => warning.msg === 'delivery recorded but not acknowledged'),
    );
    expect(warnings).toEqual([
      expect.objectContaining({ msg: 'delivery recorded but not acknowledged', eventId: published.eventId }),
    ]);

    dispatcher.accept(copy(async () => void acks.push(published.eventId)));
    await eventually('the copy offered again acknowledged', () => acks.length === 1);
    expect(receiver.at(path)).toHaveLength(1);
    expect(await deliveries.isRecorded(published.eventId)).toBe(true);
  });
});
