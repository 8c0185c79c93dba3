import { ACCESS_INVALIDATION_TOPIC, decodeAccessInvalidation, isSubscribedTo } from '@jumbe/contracts';
import type { InvalidationBus } from '@jumbe/coordination';
import { LRUCache } from 'lru-cache';
import type { WebhookSubscriptionLookup } from './ports/webhook-subscription-lookup';

/** Whether an account would receive an event of a type, asked before the event is published. */
export interface EventTypeFilter {
  wants(accountId: string, eventType: string): Promise<boolean>;
}

/** Publishes every event: the dispatcher still delivers only what the account subscribed to. */
export const EVERY_EVENT: EventTypeFilter = { wants: async () => true };

type Cached = { events: readonly string[] | null };

/**
 * Keeps opt-in events (a `message.status` for every send, a `session.status` for every state
 * change) off the event stream for accounts that did not subscribe to them: most accounts take
 * only `message.received`, and each unwanted event cost a durable write, a read and a drop (in the
 * all-in-one, two PostgreSQL statements per send). The dispatcher's own check stays the rule;
 * this is only a cheaper "no" at the source, so when in doubt (no answer from the database) it
 * says yes. A `PATCH /webhook` publishes an invalidation before it answers, so a subscription
 * counts from that answer on; the TTL bounds staleness if an invalidation is lost.
 */
export class SubscriptionFilter implements EventTypeFilter {
  private readonly cache = new LRUCache<string, Cached>({ max: 10_000, ttl: 10_000 });
  /** Reads in flight, shared: a restore asks for every session of an account at once. */
  private readonly reading = new Map<string, Promise<readonly string[] | null | undefined>>();
  private live = false;
  /** Counts invalidations: a read that began before one is answered but not cached. */
  private generation = 0;

  constructor(
    private readonly lookup: WebhookSubscriptionLookup,
    private readonly invalidations: InvalidationBus,
  ) {}

  async start(): Promise<void> {
    this.invalidations.onPossibleLoss(() => this.forget());
    await this.invalidations.subscribe(ACCESS_INVALIDATION_TOPIC, (text) => {
      const message = decodeAccessInvalidation(text);
      if (message === null) this.forget();
      else if (message.kind === 'webhook') this.forget(message.accountId);
    });
    this.live = true;
  }

  async wants(accountId: string, eventType: string): Promise<boolean> {
    const events = await this.eventsOf(accountId);
    return events === undefined || (events !== null && isSubscribedTo(events, eventType));
  }

  /** The account's subscriptions; undefined when they could not be read. */
  private eventsOf(accountId: string): Promise<readonly string[] | null | undefined> {
    const cached = this.cache.get(accountId);
    if (cached) return Promise.resolve(cached.events);
    let read = this.reading.get(accountId);
    if (read === undefined) {
      const pending = this.read(accountId).finally(() => {
        if (this.reading.get(accountId) === pending) this.reading.delete(accountId);
      });
      this.reading.set(accountId, pending);
      read = pending;
    }
    return read;
  }

  private forget(accountId?: string): void {
    this.generation++;
    if (accountId === undefined) {
      this.cache.clear();
      this.reading.clear();
    } else {
      this.cache.delete(accountId);
      this.reading.delete(accountId);
    }
  }

  private async read(accountId: string): Promise<readonly string[] | null | undefined> {
    const generation = this.generation;
    try {
      const events = await this.lookup.eventsOf(accountId);
      // Cached only while invalidations are heard, and only if none came while reading.
      if (this.live && generation === this.generation) this.cache.set(accountId, { events });
      return events;
    } catch {
      return undefined;
    }
  }
}
