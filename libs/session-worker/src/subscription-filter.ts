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
  private live = false;

  constructor(
    private readonly lookup: WebhookSubscriptionLookup,
    private readonly invalidations: InvalidationBus,
  ) {}

  async start(): Promise<void> {
    this.invalidations.onPossibleLoss(() => this.cache.clear());
    await this.invalidations.subscribe(ACCESS_INVALIDATION_TOPIC, (text) => {
      const message = decodeAccessInvalidation(text);
      if (message === null) this.cache.clear();
      else if (message.kind === 'webhook') this.cache.delete(message.accountId);
    });
    this.live = true;
  }

  async wants(accountId: string, eventType: string): Promise<boolean> {
    const events = await this.eventsOf(accountId);
    return events === undefined || (events !== null && isSubscribedTo(events, eventType));
  }

  /** The account's subscriptions; undefined when they could not be read. */
  private async eventsOf(accountId: string): Promise<readonly string[] | null | undefined> {
    const cached = this.cache.get(accountId);
    if (cached) return cached.events;
    try {
      const events = await this.lookup.eventsOf(accountId);
      // Cached only while invalidations are heard: before that, every answer is read afresh.
      if (this.live) this.cache.set(accountId, { events });
      return events;
    } catch {
      return undefined;
    }
  }
}
