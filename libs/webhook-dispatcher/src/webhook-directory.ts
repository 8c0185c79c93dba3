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

type Cached = { target: WebhookTarget | null };

/**
 * The accounts' webhooks as dispatchers see them: read from PostgreSQL, URL and secret decrypted, cached.
 * A save publishes an invalidation, so a rotated secret signs the very next delivery; the TTL
 * bounds staleness if a message is lost.
 */
export class WebhookDirectory {
  private readonly cache = new LRUCache<string, Cached>({ max: 10_000, ttl: 10_000 });

  constructor(
    private readonly webhooks: WebhookLookup,
    private readonly vault: WebhookVault,
    private readonly invalidations: InvalidationBus,
  ) {}

  async start(): Promise<void> {
    this.invalidations.onPossibleLoss(() => this.cache.clear());
    await this.invalidations.subscribe(ACCESS_INVALIDATION_TOPIC, (text) => {
      const message = decodeAccessInvalidation(text);
      if (message === null) this.cache.clear();
      else if (message.kind === 'webhook') this.cache.delete(message.accountId);
    });
  }

  /** The account's webhook, or null when it has none. */
  async get(accountId: string, options: { fresh?: boolean } = {}): Promise<WebhookTarget | null> {
    const cached = options.fresh ? undefined : this.cache.get(accountId);
    if (cached) return cached.target;
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
    this.cache.set(accountId, { target });
    return target;
  }

  /**
   * Where an event of type `event` goes: the account's webhook when it is enabled and subscribed
   * to that type, else null (the event is not delivered and nothing is recorded).
   */
  async targetFor(accountId: string, event: string): Promise<WebhookTarget | null> {
    const webhook = await this.get(accountId);
    return webhook && webhook.enabled && isSubscribedTo(webhook.events, event) ? webhook : null;
  }
}
