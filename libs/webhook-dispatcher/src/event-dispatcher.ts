import type { StreamEvent } from '@jumbe/contracts';
import { deliveryIdForEvent } from '@jumbe/domain';
import type { DeliverableEvent } from '@jumbe/messaging';
import type { DeliveryRecord } from '@jumbe/domain';
import type { DeliveryLog } from './ports/delivery-log';
import type { Logger } from 'pino';
import type { WebhookDirectory } from './webhook-directory';
import type { WebhookPoster } from './webhook-poster';

/** A stream event whose payload the shard owner validated against the event schemas. */
export type StreamDeliverable = DeliverableEvent<StreamEvent>;

interface SessionQueue {
  events: StreamDeliverable[];
  running: boolean;
  /** The delivery being made (POST, record, acknowledgement), if any. */
  inHand?: { event: StreamDeliverable; done: Promise<void> };
}

export interface EventDispatcherOptions {
  /** How long to wait before retrying an event whose delivery could not be recorded. */
  retryDelayMs: number;
  /**
   * Tries to record an attempt before it is recorded without its response and payload, so that
   * one record the database refuses never holds up the session's later events.
   */
  maxRecordTries: number;
}

const DEFAULT_OPTIONS: EventDispatcherOptions = { retryDelayMs: 1_000, maxRecordTries: 5 };
/** How often waiting events tell the stream they are still being worked on. */
const KEEPALIVE_MS = 30_000;

/** The payload kept for an attempt whose own payload the database refused. */
const UNRECORDABLE = Object.freeze({ unrecordable: true });

/**
 * Delivers stream events to the accounts' webhooks: one queue per session, so a session's events
 * go out in order while a slow or dead receiver only holds up its own sessions. Each event is
 * POSTed once, the attempt recorded, and only then acknowledged; an event whose attempt is
 * already recorded (delivered by a dispatcher that died before acknowledging) is not sent again.
 */
export class EventDispatcher {
  private readonly queues = new Map<string, SessionQueue>();
  /** Attempts made but not yet recorded: a retry records them instead of POSTing again. */
  private readonly unrecorded = new Map<string, DeliveryRecord>();
  /** Failed tries to record each event's attempt. */
  private readonly recordTries = new Map<string, number>();
  private readonly keepalive: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly directory: WebhookDirectory,
    private readonly poster: WebhookPoster,
    private readonly deliveries: Pick<DeliveryLog, 'record' | 'isRecorded'>,
    private readonly logger: Logger,
    private readonly options: EventDispatcherOptions = DEFAULT_OPTIONS,
  ) {
    this.keepalive = setInterval(() => this.keepWaitingEventsAlive(), KEEPALIVE_MS);
    this.keepalive.unref();
  }

  accept(event: StreamDeliverable): void {
    const payload = event.payload;
    const key = `${payload.customerId}/${payload.sessionId}`;
    const queue = this.queues.get(key) ?? { events: [], running: false };
    queue.events.push(event);
    this.queues.set(key, queue);
    if (!queue.running) void this.drain(key, queue);
  }

  /** Stops taking up queued events; what is not acknowledged goes to the shard's next owner. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.keepalive);
    this.queues.clear();
    this.unrecorded.clear();
  }

  /** Forgets the queued events of sessions in a shard this dispatcher no longer owns. */
  forgetWhere(belongs: (payload: StreamEvent) => boolean): void {
    for (const queue of this.queues.values()) {
      queue.events = queue.events.filter((event) => !belongs(event.payload));
    }
  }

  /**
   * Resolves once the deliveries in hand for sessions that `belong` are over (POSTed, recorded
   * and acknowledged, or failed). A dispatcher letting a shard go waits for them, so the
   * receiver's answer is recorded and the next owner does not POST the same event again.
   */
  async finishInHand(belongs: (payload: StreamEvent) => boolean): Promise<void> {
    const inHand = [...this.queues.values()].flatMap((queue) =>
      queue.inHand && belongs(queue.inHand.event.payload) ? [queue.inHand.done] : [],
    );
    await Promise.allSettled(inHand);
  }

  private async drain(key: string, queue: SessionQueue): Promise<void> {
    queue.running = true;
    while (queue.events.length > 0 && !this.stopped) {
      const event = queue.events[0]!;
      const done = this.deliver(event);
      queue.inHand = { event, done };
      try {
        await done;
        if (queue.events[0] === event) queue.events.shift();
      } catch (error) {
        this.logger.warn({ err: error, eventId: event.eventId }, 'delivery could not be recorded; retrying');
        this.afterRecordFailure(event.eventId, error);
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs));
      } finally {
        queue.inHand = undefined;
      }
    }
    queue.running = false;
    if (queue.events.length === 0 && this.queues.get(key) === queue) this.queues.delete(key);
  }

  private async deliver(event: StreamDeliverable): Promise<void> {
    const record = this.unrecorded.get(event.eventId) ?? (await this.attempt(event));
    if (record === null) return event.ack();
    // Kept until recorded: if recording fails, the retry records this attempt, it does not POST again.
    this.unrecorded.set(event.eventId, record);
    await this.deliveries.record(record);
    this.unrecorded.delete(event.eventId);
    this.recordTries.delete(event.eventId);
    await event.ack();
  }

  /**
   * After `maxRecordTries` failures the attempt is recorded without what the database may refuse
   * (the receiver's response, the payload), with the reason in `error`: the queue moves on and the
   * attempt stays visible in GET /webhook. While the database itself is down even that fails, and
   * the event waits: nothing is acknowledged unrecorded.
   */
  private afterRecordFailure(eventId: string, error: unknown): void {
    const tries = (this.recordTries.get(eventId) ?? 0) + 1;
    this.recordTries.set(eventId, tries);
    const record = this.unrecorded.get(eventId);
    if (!record || tries < this.options.maxRecordTries || record.payload === UNRECORDABLE) return;
    const reason = error instanceof Error ? error.message : String(error);
    this.unrecorded.set(eventId, {
      ...record,
      response: null,
      payload: UNRECORDABLE,
      error:
        `${record.error ? `${record.error}; ` : ''}the attempt was recorded without its response and payload, which the database refused: ${reason}`.slice(
          0,
          1_000,
        ),
    });
  }

  /** POSTs the event once; null when there is nothing to send (already recorded, or no enabled webhook). */
  private async attempt(event: StreamDeliverable): Promise<DeliveryRecord | null> {
    const payload = event.payload;
    if (await this.deliveries.isRecorded(event.eventId)) return null;
    // A disabled or missing webhook receives nothing and records nothing (CONTRACT §6), nor does
    // one that did not subscribe to the event's type.
    const webhook = await this.directory.targetFor(payload.customerId, payload.event);
    if (!webhook) return null;
    return this.poster.post({
      accountId: payload.customerId,
      eventId: event.eventId,
      // The same event always gets the same delivery id, so a resend after a crash can be de-duplicated.
      deliveryId: deliveryIdForEvent(event.eventId),
      url: webhook.url,
      secret: webhook.secret,
      payload,
      trace: event.headers,
    });
  }

  private keepWaitingEventsAlive(): void {
    for (const queue of this.queues.values()) {
      for (const event of queue.events) void event.working().catch(() => undefined);
    }
  }
}
