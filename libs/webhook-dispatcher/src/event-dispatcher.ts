import type { DeliveryRecord, LastAttempt, StreamEvent } from '@jumbe/contracts';
import { DEFAULT_RETRY_BASE_MS, deliveryIdForEvent } from '@jumbe/domain';
import { type DeliverableEvent, MicroBatcher } from '@jumbe/messaging';
import { countRetryDecision } from '@jumbe/telemetry';
import type { Logger } from 'pino';
import { DeliveryRecorder, type DeliveryRecorderOptions } from './delivery-recorder';
import { FairSlots } from './fair-slots';
import type { DeliveryLog } from './ports/delivery-log';
import { RetryPolicy } from './retry-policy';
import type { StreamDeliverable } from './stream-deliverable';
import type { WebhookDirectory } from './webhook-directory';
import { cannotBeRecordedYet } from './unrecorded-event-rule';
import { CONNECTIONS_PER_ACCOUNT, type WebhookPoster } from './webhook-poster';

interface QueuedEvent {
  event: StreamDeliverable;
  /**
   * Its latest recorded attempt (null: none yet): asked on arrival, one query for all that arrive
   * together; then kept up to date here while the event waits for a retry.
   */
  last: Promise<LastAttempt | null>;
  /**
   * Aborted when the event is forgotten here (its shard let go, or the dispatcher stopped): if it
   * is still waiting for a POST slot then, it gives up its turn unsent, for the next owner to POST.
   */
  forgotten: AbortController;
}

/** The outcome of taking up a session's head event. */
interface Attempted {
  /** The attempt made, or null when nothing was sent. */
  record: DeliveryRecord | null;
  /** Set when the event is to be tried again then (opt-in retries): it stays at the head. */
  retryAt: Date | null;
}

interface SessionQueue {
  events: QueuedEvent[];
  running: boolean;
  /** Attempts of this session made and not yet recorded. */
  unrecorded: number;
  /** Wakes the session's drain waiting for one of its attempts to be recorded. */
  wake: (() => void) | null;
  /** Wakes the session's drain waiting out its head event's retry backoff. */
  backoff: (() => void) | null;
}

export interface EventDispatcherOptions extends DeliveryRecorderOptions {
  /** POSTs in flight at once, over all sessions. */
  maxParallelPosts: number;
  /**
   * POSTs of one account in flight at once: its share of `maxParallelPosts`, so a receiver that
   * hangs holds no more than this. At most the poster's connections per account
   * (CONNECTIONS_PER_ACCOUNT), so a slot is only taken when a connection is free.
   */
  maxPostsPerAccount: number;
  /**
   * Attempts of one session awaiting their record before it POSTs the next: the session's next
   * event goes out while the previous one is being recorded, and a database outage holds up at
   * most this many attempts per session.
   */
  maxUnrecordedPerSession: number;
  /** The wait before an opted-in webhook's first retry of a failed event (JUMBE_WEBHOOK_RETRY_BASE_MS). */
  retryBaseMs: number;
  /**
   * A session waiting out a retry's backoff looks again this often, so a retry setting turned off
   * or a webhook disabled meanwhile ends the wait (a backoff can last hours).
   */
  backoffRecheckMs: number;
}

const DEFAULT_OPTIONS: EventDispatcherOptions = {
  retryDelayMs: 1_000,
  maxRecordTries: 5,
  concurrentRecords: 4,
  recordLingerMs: 10,
  maxParallelPosts: 64,
  maxPostsPerAccount: CONNECTIONS_PER_ACCOUNT,
  maxUnrecordedPerSession: 4,
  retryBaseMs: DEFAULT_RETRY_BASE_MS,
  backoffRecheckMs: 60_000,
};
/** How often waiting events tell the stream they are still being worked on. */
const KEEPALIVE_MS = 30_000;

/** A delivery being made (POST, record, acknowledgement); a shard let go waits for it. */
interface InHand {
  payload: StreamEvent;
  done: Promise<void>;
}

const NOTHING_RECORDED: Promise<LastAttempt | null> = Promise.resolve(null);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Delivers stream events to the accounts' webhooks: one queue per session, so a session's events
 * go out in order (the next POST only once the previous one was answered) while different
 * sessions go out in parallel and a slow or dead receiver only holds up its own sessions (an
 * account POSTs in at most its share of the dispatcher's slots, see `FairSlots`). Each
 * event is POSTed once, its attempt recorded (in a batch with the attempts finished meanwhile),
 * and only then acknowledged; an event whose attempt is already recorded (delivered by a
 * dispatcher that died before acknowledging) is not sent again.
 *
 * An account that opted into retries gets a failed event POSTed again after a backoff (see
 * `RetryPolicy`), under the same delivery id, each attempt recorded. The event stays at the head
 * of its session's queue meanwhile, unacknowledged and kept alive, so the session's later events
 * wait behind it (ordered per session); what is recorded says where to go on after a restart.
 */
export class EventDispatcher {
  private readonly queues = new Map<string, SessionQueue>();
  /** Every event here, queued or awaiting its record; a copy offered again meanwhile waits with it. */
  private readonly held = new Map<string, DeliverableEvent[]>();
  private readonly inHand = new Set<InHand>();
  private readonly lastAttempts: MicroBatcher<string, LastAttempt | null>;
  private readonly retries: RetryPolicy;
  private readonly recorder: DeliveryRecorder;
  private readonly posts: FairSlots;
  private readonly options: EventDispatcherOptions;
  private readonly keepalive: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly directory: WebhookDirectory,
    private readonly poster: WebhookPoster,
    deliveries: Pick<DeliveryLog, 'recordBatch' | 'lastAttemptsAmong'>,
    private readonly logger: Logger,
    options: Partial<EventDispatcherOptions> = {},
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    this.lastAttempts = new MicroBatcher(
      async (eventIds) => {
        const recorded = await deliveries.lastAttemptsAmong(eventIds);
        return eventIds.map((eventId) => recorded.get(eventId) ?? null);
      },
      // Each arriving event waits for its answer before its POST: a second query may overlap.
      { isolateFailures: false, concurrency: 2 },
    );
    this.retries = new RetryPolicy(this.options.retryBaseMs);
    this.recorder = new DeliveryRecorder(deliveries, logger, this.options);
    this.posts = new FairSlots(this.options.maxParallelPosts, this.options.maxPostsPerAccount);
    this.keepalive = setInterval(() => this.keepWaitingEventsAlive(), KEEPALIVE_MS);
    this.keepalive.unref();
  }

  accept(event: StreamDeliverable): void {
    const copies = this.held.get(event.eventId);
    // Offered again while here (the stream's redelivery, the shard taken up again): the first
    // copy's outcome settles both, so the event is never POSTed twice from here.
    this.logger.debug({ eventId: event.eventId, copy: copies !== undefined }, 'event taken');
    if (copies) return void copies.push(event);
    this.held.set(event.eventId, [event]);
    const key = `${event.payload.customerId}/${event.payload.sessionId}`;
    const queue = this.queues.get(key) ?? {
      events: [],
      running: false,
      unrecorded: 0,
      wake: null,
      backoff: null,
    };
    // An event no one can have recorded goes out without the database round trip before its POST.
    const last = cannotBeRecordedYet(event) ? NOTHING_RECORDED : this.checkLastAttempt(event.eventId);
    queue.events.push({ event, last, forgotten: new AbortController() });
    this.queues.set(key, queue);
    if (!queue.running) void this.drain(key, queue);
  }

  /** Stops taking up queued events; what is not acknowledged goes to the shard's next owner. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.keepalive);
    for (const queue of this.queues.values()) {
      for (const queued of queue.events) queued.forgotten.abort();
      queue.wake?.();
      queue.backoff?.();
    }
    this.queues.clear();
    this.held.clear();
  }

  /** Forgets the queued events of sessions in a shard this dispatcher no longer owns. */
  forgetWhere(belongs: (payload: StreamEvent) => boolean): void {
    for (const queue of this.queues.values()) {
      queue.events = queue.events.filter(({ event, forgotten }) => {
        if (!belongs(event.payload)) return true;
        this.held.delete(event.eventId);
        forgotten.abort();
        return false;
      });
      // A head forgotten while waiting for its retry stops waiting here; its next owner waits the rest.
      queue.backoff?.();
    }
  }

  /**
   * Resolves once the deliveries in hand for sessions that `belong` are over (POSTed, recorded
   * and acknowledged, or the record's first write failed). A dispatcher letting a shard go waits for them, so
   * the receiver's answer is recorded and the next owner does not POST the same event again.
   */
  async finishInHand(belongs: (payload: StreamEvent) => boolean): Promise<void> {
    const over = [...this.inHand].filter((delivery) => belongs(delivery.payload));
    await Promise.allSettled(over.map((delivery) => delivery.done));
  }

  private async drain(key: string, queue: SessionQueue): Promise<void> {
    queue.running = true;
    for (let head = queue.events[0]; head !== undefined && !this.stopped; head = queue.events[0]) {
      let over: () => void = () => undefined;
      try {
        await this.roomIn(queue);
        if (queue.events[0] !== head) continue; // forgotten meanwhile: the shard changed hands
        over = this.takeInHand(head.event.payload);
        const { record, retryAt } = await this.attempt(head);
        if (retryAt) {
          await this.keepForRetry(head, record);
          over();
          await this.backoff(queue, retryAt);
          continue;
        }
        if (queue.events[0] === head) queue.events.shift();
        queue.unrecorded += 1;
        void this.settle(key, queue, head.event, record, over);
      } catch (error) {
        over();
        // Forgotten while it waited for a POST slot: nothing was sent, and the next owner sends it.
        if (head.forgotten.signal.aborted) continue;
        // The already-recorded check or the webhook lookup failed (database unreachable): ask again.
        this.logger.warn(
          { err: error, eventId: head.event.eventId },
          'delivery could not be prepared; retrying',
        );
        head.last = this.checkLastAttempt(head.event.eventId);
        await sleep(this.options.retryDelayMs);
      }
    }
    queue.running = false;
    this.forgetIfIdle(key, queue);
  }

  /** Marks a delivery of the session as in hand; the function returned ends it. */
  private takeInHand(payload: StreamEvent): () => void {
    let resolve: () => void = () => undefined;
    const delivery: InHand = { payload, done: new Promise<void>((done) => (resolve = done)) };
    this.inHand.add(delivery);
    return () => {
      this.inHand.delete(delivery);
      resolve();
    };
  }

  private async roomIn(queue: SessionQueue): Promise<void> {
    while (queue.unrecorded >= this.options.maxUnrecordedPerSession && !this.stopped) {
      await new Promise<void>((resolve) => (queue.wake = resolve));
    }
  }

  /**
   * Records the event's outcome, then (never before) acknowledges it and any copy of it. The
   * session's slot is free once the record is committed: acknowledging is the stream's round trip,
   * and a lost acknowledgement only makes the stream offer a recorded event again (not re-sent).
   * `over` is told once the delivery is acknowledged, or its first write failed.
   */
  private async settle(
    key: string,
    queue: SessionQueue,
    event: StreamDeliverable,
    record: DeliveryRecord | null,
    over: () => void,
  ): Promise<void> {
    try {
      let recorded = false;
      try {
        recorded = await this.recorder.settle({ eventId: event.eventId, record }, () => this.stopped, over);
      } finally {
        queue.unrecorded -= 1;
        queue.wake?.();
        queue.wake = null;
        this.forgetIfIdle(key, queue);
      }
      if (!recorded) return;
      const copies = this.held.get(event.eventId) ?? [event];
      this.held.delete(event.eventId);
      await Promise.all(copies.map((copy) => this.acknowledge(copy)));
    } finally {
      over();
    }
  }

  private async acknowledge(event: DeliverableEvent): Promise<void> {
    try {
      await event.ack();
    } catch (error) {
      // Recorded, so when the stream offers it again it is acknowledged without a second POST.
      this.logger.warn({ err: error, eventId: event.eventId }, 'delivery recorded but not acknowledged');
    }
  }

  /**
   * POSTs the event's next attempt, if one is due: none when there is nothing to send (delivered
   * already, no retry left, or no enabled webhook), or when its retry is not due yet.
   */
  private async attempt(queued: QueuedEvent): Promise<Attempted> {
    const { event } = queued;
    const payload = event.payload;
    const last = await queued.last;
    if (last?.status === 'success') return { record: null, retryAt: null };
    // A disabled or missing webhook receives nothing and records nothing (CONTRACT §6), nor does
    // one that did not subscribe to the event's type.
    const webhook = await this.directory.targetFor(payload.customerId, payload.event);
    if (!webhook) return { record: null, retryAt: null };
    const step = this.retries.nextStep(last, webhook, payload.timestamp);
    if (step.kind === 'done') return { record: null, retryAt: null };
    if (step.kind === 'wait') return { record: null, retryAt: step.until };
    // The account's share of the slots (see FairSlots): one account's hung receiver leaves the rest free.
    const record = await this.posts.run(
      payload.customerId,
      () =>
        this.poster.post({
          accountId: payload.customerId,
          eventId: event.eventId,
          // The same event always gets the same delivery id (its retries too), so receivers de-duplicate it.
          deliveryId: deliveryIdForEvent(event.eventId),
          attempt: step.attempt,
          url: webhook.url,
          secret: webhook.secret,
          payload,
          trace: event.headers,
        }),
      queued.forgotten.signal,
    );
    // Ids and outcome only (never the payload): a fault schedule's order is read from these.
    this.logger.debug({ eventId: event.eventId, status: record.status }, 'webhook attempt');
    const retryAt =
      record.status === 'failed' ? this.retries.retryAt(record, webhook, payload.timestamp) : null;
    if (record.status === 'failed' && webhook.retry) this.noteRetryDecision(record, retryAt);
    return { record, retryAt };
  }

  /** Counts a failed attempt of an opted-in account as retried or given up; a give-up is logged (never the payload). */
  private noteRetryDecision(record: DeliveryRecord, retryAt: Date | null): void {
    countRetryDecision(retryAt ? 'retry' : 'give_up');
    if (retryAt) return;
    this.logger.warn(
      { deliveryId: record.id, accountId: record.accountId, attempts: record.attempt },
      'webhook event given up: its last attempt failed',
    );
  }

  /**
   * Records a failed attempt whose event is to be tried again, leaving the event unacknowledged
   * (and, all-in-one, in the log). Committed before the next attempt is made, so a dispatcher
   * taking the event over later never makes an attempt recorded here again.
   */
  private async keepForRetry(queued: QueuedEvent, record: DeliveryRecord | null): Promise<void> {
    if (!record) return;
    const kept = await this.recorder.settle(
      { eventId: queued.event.eventId, record, retrying: true },
      () => this.stopped,
    );
    if (kept) queued.last = Promise.resolve(record);
  }

  /** Waits until the session's retry is due, looking again now and then; woken when stopped or forgotten. */
  private async backoff(queue: SessionQueue, until: Date): Promise<void> {
    const wait = Math.min(Math.max(until.getTime() - Date.now(), 0), this.options.backoffRecheckMs);
    if (this.stopped) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      queue.backoff = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    queue.backoff = null;
  }

  private checkLastAttempt(eventId: string): Promise<LastAttempt | null> {
    const answer = this.lastAttempts.submit(eventId);
    // Awaited when the event's turn comes; an event forgotten before then never reads it.
    answer.catch(() => undefined);
    return answer;
  }

  private forgetIfIdle(key: string, queue: SessionQueue): void {
    const idle = !queue.running && queue.events.length === 0 && queue.unrecorded === 0;
    if (idle && this.queues.get(key) === queue) this.queues.delete(key);
  }

  private keepWaitingEventsAlive(): void {
    for (const copies of this.held.values()) {
      for (const event of copies) void event.working().catch(() => undefined);
    }
  }
}
