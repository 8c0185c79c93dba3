import {
  ACCESS_INVALIDATION_TOPIC,
  encodeAccessInvalidation,
  inboundEventId,
  inboundEventSubject,
} from '@jumbe/contracts';
import { MemoryInvalidationBus } from '@jumbe/coordination';
import { deliveryIdForEvent, generateWebhookSecret, WebhookVault } from '@jumbe/domain';
import {
  DurableEventLog,
  type EventConsumption,
  type EventLogStore,
  type OutgoingEvent,
} from '@jumbe/messaging';
import {
  AccountRepository,
  type DeliveryRecord,
  InboundEventRepository,
  openMigratedTestDatabase,
  PlanRepository,
  WebhookDeliveryRepository,
  WebhookRepository,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { closedPort, delay, eventually, RecordingReceiver } from '@jumbe/testing';
import { verifyDelivery } from '@jumbe/webhook-receiver';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import pino from 'pino';
import { EventDispatcher, type StreamDeliverable } from './event-dispatcher';
import { WebhookDirectory } from './webhook-directory';
import { WebhookPoster } from './webhook-poster';

/**
 * The dispatcher with its real parts: the all-in-one durable event log over the inbound_events
 * table, the webhook directory over the webhooks table (secrets sealed with the webhook purpose),
 * a real poster (private networks allowed, so it may reach 127.0.0.1), the deliveries table, and
 * a real HTTP receiver. Nothing here is a stand-in except where a test says so.
 */
describe('EventDispatcher', () => {
  let db: MigratedTestDatabase;
  let receiver: RecordingReceiver;
  let events: InboundEventRepository;
  let deliveries: WebhookDeliveryRepository;
  let webhooks: WebhookRepository;
  let invalidations: MemoryInvalidationBus;
  let directory: WebhookDirectory;
  const vault = new WebhookVault('dispatcher-test-secret-key-0123456789');
  const poster = new WebhookPoster(true);
  const warnings: { msg: string; eventId?: string }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
  const running: { dispatcher: EventDispatcher; consumption: EventConsumption }[] = [];
  let nextShard = 0;
  let nextMessage = 0;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    receiver = await RecordingReceiver.start();
    events = new InboundEventRepository(db.dataSource);
    deliveries = new WebhookDeliveryRepository(db.dataSource);
    webhooks = new WebhookRepository(db.dataSource);
    invalidations = new MemoryInvalidationBus();
    directory = new WebhookDirectory(webhooks, vault, invalidations);
    await directory.start();
  });
  afterEach(async () => {
    for (const { dispatcher, consumption } of running.splice(0)) {
      await consumption.stop();
      dispatcher.stop();
    }
    warnings.length = 0;
  });
  afterAll(async () => {
    await receiver.close();
    await db.close();
  });

  /** Each test uses its own shards, so one test's leftovers never reach another's consumer. */
  const freshShard = () => nextShard++;

  async function createAccount(): Promise<string> {
    const plan = await new PlanRepository(db.dataSource).create({
      name: `plan-${randomUUID()}`,
      monthlyApiHits: 1_000,
      maxSessions: 5,
    });
    return (await new AccountRepository(db.dataSource).create({ name: 'Dispatch test', planId: plan.id })).id;
  }

  /** Saves the account's webhook as the gateway does: secret sealed, invalidation published. */
  async function saveWebhook(accountId: string, url: string, enabled = true): Promise<string> {
    const secret = generateWebhookSecret();
    await webhooks.save({
      accountId,
      ...vault.storableUrl(url),
      enabled,
      secretCiphertext: vault.sealSigningSecret(secret),
      events: ['message.received'],
    });
    await invalidations.publish(
      ACCESS_INVALIDATION_TOPIC,
      encodeAccessInvalidation({ v: 1, kind: 'webhook', accountId }),
    );
    return secret;
  }

  /** An account with an enabled webhook pointing at its own path of the receiver. */
  async function subscribedAccount(): Promise<{ accountId: string; path: string; secret: string }> {
    const accountId = await createAccount();
    const path = `/hooks/${accountId}`;
    const secret = await saveWebhook(accountId, `${receiver.url}${path}`);
    return { accountId, path, secret };
  }

  function inboundEvent(shard: number, accountId: string, sessionId = 'main'): OutgoingEvent {
    const messageId = `MSG${++nextMessage}`;
    return {
      eventId: inboundEventId(accountId, sessionId, messageId),
      subject: inboundEventSubject(shard, accountId, sessionId),
      shard,
      payload: {
        event: 'message.received',
        timestamp: new Date(Date.UTC(2030, 0, 1, 12, 0, 0, nextMessage)).toISOString(),
        customerId: accountId,
        sessionId,
        message: { id: messageId, from: '254712345678', text: `message ${messageId}` },
      },
    };
  }

  /** Consumes `shard` of a durable log over `store` into a new dispatcher, as a shard owner does. */
  async function dispatchShard(
    shard: number,
    options: {
      store?: EventLogStore;
      deliveries?: Pick<WebhookDeliveryRepository, 'record' | 'isRecorded'>;
    } = {},
  ): Promise<DurableEventLog> {
    const log = new DurableEventLog(options.store ?? events);
    const dispatcher = new EventDispatcher(directory, poster, options.deliveries ?? deliveries, logger, {
      retryDelayMs: 20,
      maxRecordTries: 3,
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

  const messageIds = (requests: { json: any }[]) => requests.map((request) => request.json.message.id);
  const idOf = (event: OutgoingEvent) => (event.payload as { message: { id: string } }).message.id;

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

  it('records each delivery under the deterministic delivery id before the event leaves the log', async () => {
    const shard = freshShard();
    const { accountId, path, secret } = await subscribedAccount();
    const recordedWhenRemoved = new Map<string, boolean>();
    // Observes the log's real store: at the moment an event is removed, is its delivery recorded?
    const observed: EventLogStore = {
      append: (event) => events.append(event),
      pending: (s) => events.pending(s),
      remove: async (eventId) => {
        recordedWhenRemoved.set(eventId, await deliveries.isRecorded(eventId));
        await events.remove(eventId);
      },
    };
    const log = await dispatchShard(shard, { store: observed });
    const published = [inboundEvent(shard, accountId), inboundEvent(shard, accountId, 'sales')];
    for (const event of published) await log.publish(event);

    await logDrained(shard);
    expect(await events.pending(shard)).toEqual([]);

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
    const flakyDeliveries: Pick<WebhookDeliveryRepository, 'record' | 'isRecorded'> = {
      record: async (delivery) => {
        recordCalls += 1;
        if (recordCalls === 1) throw new Error('Connection terminated unexpectedly');
        return deliveries.record(delivery);
      },
      isRecorded: (eventId) => deliveries.isRecorded(eventId),
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
    const refusingDeliveries: Pick<WebhookDeliveryRepository, 'record' | 'isRecorded'> = {
      record: async (delivery) => {
        if ((delivery.payload as { unrecordable?: boolean }).unrecordable !== true) {
          throw new Error('unsupported Unicode escape sequence');
        }
        return deliveries.record(delivery);
      },
      isRecorded: (eventId) => deliveries.isRecorded(eventId),
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
  });
});
