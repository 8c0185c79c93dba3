import { ACCESS_INVALIDATION_TOPIC, decodeAccessInvalidation, isSubscribedTo } from '@jumbe/contracts';
import type { InvalidationBus } from '@jumbe/coordination';
import type { RetrySetting, WebhookVault } from '@jumbe/domain';
import type { WebhookLookup } from './ports/webhook-lookup';
import { LRUCache } from 'lru-cache';

/** What a delivery needs of the account's webhook. */
export interface WebhookTarget {
  /** The full URL, credentials included: only ever posted to, never recorded or logged. */
  url: string;
  enabled: boolean;
  secret: string;
  /** Event types it receives (`webhook.test` always goes). */
  events: readonly string[];
  /** Opt-in retries of a failed event; null: none (the spec). */
  retry: RetrySetting | null;
}

/** A webhook as read, and until when it is served without being read again. */
type Cached = { target: WebhookTarget | null; freshUntil: number };

/** How long a read webhook is served before it is read again (if an invalidation was lost). */
const FRESH_MS = 10_000;

/**
 * The accounts' webhooks as dispatchers see them: read from PostgreSQL, URL and secret decrypted, cached.
 * A save publishes an invalidation, so a rotated secret signs the very next delivery; the TTL
 * bounds staleness if a message is lost. Past the TTL the cached webhook is still served while it
 * is read again in the background, so deliveries never wait for that read; concurrent reads of
 * one account share one query.
 */
export class WebhookDirectory {
  private readonly cache = new LRUCache<string, Cached>({ max: 10_000 });
  /** Reads in flight, per account; a read started before an invalidation is not joined after it. */
  private readonly reading = new Map<string, Promise<WebhookTarget | null>>();
  /** Bumped by every invalidation: a read started before one is not cached. */
  private generation = 0;

  constructor(
    private readonly webhooks: WebhookLookup,
    private readonly vault: WebhookVault,
    private readonly invalidations: InvalidationBus,
  ) {}

  async start(): Promise<void> {
    this.invalidations.onPossibleLoss(() => this.forget(null));
    await this.invalidations.subscribe(ACCESS_INVALIDATION_TOPIC, (text) => {
      const message = decodeAccessInvalidation(text);
      if (message === null) this.forget(null);
      else if (message.kind === 'webhook') this.forget(message.accountId);
    });
  }

  /** The account's webhook, or null when it has none. */
  async get(accountId: string, options: { fresh?: boolean } = {}): Promise<WebhookTarget | null> {
    const cached = options.fresh ? undefined : this.cache.get(accountId);
    if (cached) {
      if (cached.freshUntil <= Date.now()) void this.read(accountId).catch(() => undefined);
      return cached.target;
    }
    return options.fresh ? this.load(accountId) : this.read(accountId);
  }

  /**
   * Where an event of type `event` goes: the account's webhook when it is enabled and subscribed
   * to that type, else null (the event is not delivered and nothing is recorded).
   */
  async targetFor(accountId: string, event: string): Promise<WebhookTarget | null> {
    const webhook = await this.get(accountId);
    return webhook && webhook.enabled && isSubscribedTo(webhook.events, event) ? webhook : null;
  }

  /** Reads the account's webhook, joining a read of it already in flight. */
  private read(accountId: string): Promise<WebhookTarget | null> {
    const inFlight = this.reading.get(accountId);
    if (inFlight) return inFlight;
    const reading = this.load(accountId).finally(() => {
      if (this.reading.get(accountId) === reading) this.reading.delete(accountId);
    });
    this.reading.set(accountId, reading);
    return reading;
  }

  private async load(accountId: string): Promise<WebhookTarget | null> {
    const generation = this.generation;
    const stored = await this.webhooks.find(accountId);
    const target =
      stored && stored.secretCiphertext !== null
        ? {
            url: this.vault.openUrl(stored),
            enabled: stored.enabled,
            secret: this.vault.openSigningSecret(stored.secretCiphertext),
            events: stored.events,
            retry: stored.retryAttempts === null ? null : { attempts: stored.retryAttempts },
          }
        : null;
    // Read before an invalidation: possibly what was just replaced, so it is not kept.
    if (generation === this.generation)
      this.cache.set(accountId, { target, freshUntil: Date.now() + FRESH_MS });
    return target;
  }

  /** Drops one account's webhook (null: all), and any read of it in flight, so the next delivery reads it anew. */
  private forget(accountId: string | null): void {
    this.generation += 1;
    if (accountId === null) {
      this.cache.clear();
      this.reading.clear();
    } else {
      this.cache.delete(accountId);
      this.reading.delete(accountId);
    }
  }
}
