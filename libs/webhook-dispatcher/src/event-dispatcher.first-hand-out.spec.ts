import { deliveryIdForEvent } from '@jumbe/domain';
import type { DeliveryRecord, WebhookDeliveryRepository } from '@jumbe/persistence';
import { eventually, type RecordingReceiver } from '@jumbe/testing';
import pino from 'pino';
import { EventDispatcher } from './event-dispatcher';
import type { StreamDeliverable } from './stream-deliverable';
import { DispatcherTestBed, messageReceivedEvent } from './test-support/dispatcher-test-bed';
import { WebhookPoster } from './webhook-poster';

const HOUR = 3_600_000;

/**
 * The already-recorded check is skipped only for events the stream proves no one was handed
 * before, and kept for the same message id published again after the stream's duplicate window.
 * Real database, directory, poster and receiver; the stream's facts are set by hand.
 */
describe('EventDispatcher: the already-recorded check and first hand-outs', () => {
  let bed: DispatcherTestBed;
  let receiver: RecordingReceiver;
  const poster = new WebhookPoster(true);
  const asked: string[] = [];
  const dispatchers: EventDispatcher[] = [];
  let nextMessage = 0;

  beforeAll(async () => {
    bed = await DispatcherTestBed.open('first-hand-out-test-secret-key-0123456789');
    receiver = bed.receiver;
  });
  afterEach(() => {
    for (const dispatcher of dispatchers.splice(0)) dispatcher.stop();
    asked.length = 0;
  });
  afterAll(() => bed.close());

  function dispatcher(): EventDispatcher {
    const deliveries: Pick<WebhookDeliveryRepository, 'recordBatch' | 'lastAttemptsAmong'> = {
      recordBatch: (records, settled) => bed.deliveries.recordBatch(records, settled),
      lastAttemptsAmong: (eventIds) => {
        asked.push(...eventIds);
        return bed.deliveries.lastAttemptsAmong(eventIds);
      },
    };
    const created = new EventDispatcher(bed.directory, poster, deliveries, pino({ level: 'silent' }));
    dispatchers.push(created);
    return created;
  }

  /** A received message sent at `sentAt`, as the relay publishes it, with what the stream says of its copy. */
  function streamEvent(accountId: string, sentAt: Date, firstHandOut?: { storedAt: Date }) {
    const messageId = `FHO${++nextMessage}`;
    const published = messageReceivedEvent(1, accountId, messageId, {
      timestamp: new Date(sentAt.getTime() + 7),
    });
    const acks: string[] = [];
    const payload = published.payload as { message: Record<string, unknown> };
    payload.message['messageTimestamp'] = sentAt.toISOString();
    const event = {
      eventId: published.eventId,
      subject: published.subject,
      payload: published.payload,
      ...(firstHandOut ? { firstHandOut: { ...firstHandOut, duplicateWindowMs: HOUR } } : {}),
      ack: async () => void acks.push(published.eventId),
      working: async () => undefined,
    } as StreamDeliverable;
    return { event, acks, messageId };
  }

  async function subscribed(): Promise<{ accountId: string; path: string; secret: string }> {
    const accountId = await bed.createAccount('First hand-out test');
    const path = `/hooks/${accountId}`;
    const secret = await bed.saveWebhook(accountId, `${receiver.url}${path}`);
    return { accountId, path, secret };
  }

  it('POSTs an event no consumer was handed before without asking what is recorded, then records and acknowledges it', async () => {
    const { accountId, path } = await subscribed();
    const sentAt = new Date(Date.now() - 1_000);
    const { event, acks } = streamEvent(accountId, sentAt, { storedAt: new Date() });

    dispatcher().accept(event);
    await eventually('the acknowledgement', () => acks.length === 1);
    expect(receiver.at(path)).toHaveLength(1);
    expect(asked).not.toContain(event.eventId);
    expect((await bed.deliveries.lastAttemptsAmong([event.eventId])).get(event.eventId)?.status).toBe(
      'success',
    );
  });

  /** The event POSTed and recorded once already (by an earlier consumer, or before a restart). */
  async function recordEarlierDelivery(
    event: ReturnType<typeof streamEvent>['event'],
    accountId: string,
    url: string,
    secret: string,
  ): Promise<void> {
    const earlier = await poster.post({
      accountId,
      eventId: event.eventId,
      deliveryId: deliveryIdForEvent(event.eventId),
      url,
      secret,
      payload: event.payload as DeliveryRecord['payload'] & {
        event: string;
        sessionId: string;
        timestamp: string;
      },
    });
    await bed.deliveries.record(earlier);
  }

  it('asks first for a copy the stream may have handed out before, and does not POST a recorded event again', async () => {
    const { accountId, path, secret } = await subscribed();
    const sentAt = new Date(Date.now() - 1_000);
    const { event, acks } = streamEvent(accountId, sentAt);
    await recordEarlierDelivery(event, accountId, `${receiver.url}${path}`, secret);

    dispatcher().accept(event);
    await eventually('the acknowledgement', () => acks.length === 1);
    expect(asked).toContain(event.eventId);
    expect(receiver.at(path)).toHaveLength(1);
  });

  it('the same message id published again after the duplicate window: stored anew, first hand-out, still not POSTed twice', async () => {
    const { accountId, path, secret } = await subscribed();
    // Delivered and recorded two hours ago; WhatsApp sends the message again, the relay publishes
    // it again, and the stream, past its one-hour window, stores it as a new copy.
    const sentAt = new Date(Date.now() - 2 * HOUR);
    const { event, acks } = streamEvent(accountId, sentAt, { storedAt: new Date() });
    await recordEarlierDelivery(event, accountId, `${receiver.url}${path}`, secret);

    dispatcher().accept(event);
    await eventually('the acknowledgement', () => acks.length === 1);
    expect(asked).toContain(event.eventId);
    expect(receiver.at(path)).toHaveLength(1);
  });
});
