import {
  ACCESS_INVALIDATION_TOPIC,
  ApiError,
  DEFAULT_WEBHOOK_EVENTS,
  deliveryView,
  encodeAccessInvalidation,
  type UpdateWebhookInput,
} from '@jumbe/contracts';
import { generateWebhookSecret, maskWebhookUrl, type StoredWebhook, type WebhookVault } from '@jumbe/domain';
import { UrlPolicy } from '@jumbe/egress';
import type { JumbeConfig } from '@jumbe/config';
import { Inject, Injectable } from '@nestjs/common';
import { orUnavailable } from '../http/dependency-failure';
import { CONFIG, INVALIDATIONS, WEBHOOK_SECRETS } from '../gateway.tokens';
import { DeliveryHistory } from '../ports/delivery-history';
import type { InvalidationBus } from '../ports/invalidation-bus';
import { WebhookStore } from '../ports/webhook-store';

/** GET /webhook lists this many deliveries (spec "Limits"). */
const LISTED_DELIVERIES = 20;

const UNCONFIGURED = {
  url: null,
  enabled: false,
  hasSecret: false,
  events: [...DEFAULT_WEBHOOK_EVENTS],
  retry: null,
};

/** The `retry` setting as the API shows it; null: no retries (the spec). */
const retryView = (attempts: number | null) => (attempts === null ? null : { attempts });

/**
 * The account's webhook configuration (CONTRACT §6): one destination, one secret that is shown
 * only when created or rotated and otherwise kept sealed. Credentials in the URL (its query,
 * userinfo or fragment) are sealed too and only ever shown masked. Every change is announced so
 * the dispatchers sign the very next delivery with it.
 */
@Injectable()
export class WebhookSettings {
  private readonly urls: UrlPolicy;

  constructor(
    private readonly webhooks: WebhookStore,
    private readonly deliveries: DeliveryHistory,
    @Inject(WEBHOOK_SECRETS) private readonly vault: WebhookVault,
    @Inject(INVALIDATIONS) private readonly invalidations: InvalidationBus,
    @Inject(CONFIG) config: JumbeConfig,
  ) {
    this.urls = new UrlPolicy({ allowPrivateNetworks: config.allowPrivateNetworks });
  }

  async read(accountId: string) {
    const [webhook, deliveries] = await orUnavailable('database', () =>
      Promise.all([this.webhooks.find(accountId), this.deliveries.latest(accountId, LISTED_DELIVERIES)]),
    );
    const config = webhook
      ? {
          // Masked again: a row saved before URLs were sealed holds its URL in clear.
          url: maskWebhookUrl(webhook.url),
          enabled: webhook.enabled,
          hasSecret: webhook.secretCiphertext !== null,
          events: webhook.events,
          retry: retryView(webhook.retryAttempts),
        }
      : UNCONFIGURED;
    return { ...config, deliveries: deliveries.map(deliveryView) };
  }

  async update(accountId: string, input: UpdateWebhookInput) {
    const existing = await orUnavailable('database', () => this.webhooks.find(accountId));
    const url = await this.destination(input.url, existing);
    if (url === undefined) {
      const problem = 'required on the first save: the public http(s) URL that receives events';
      throw new ApiError('validation_error', `Invalid request body: /url: ${problem}`, [
        { path: '/url', problem },
      ]);
    }
    const secret = !existing?.secretCiphertext || input.rotateSecret ? generateWebhookSecret() : null;
    const enabled = input.enabled ?? existing?.enabled ?? true;
    const events = input.events ?? existing?.events ?? [...DEFAULT_WEBHOOK_EVENTS];
    // Absent keeps the setting; null turns retries off.
    const retryAttempts =
      input.retry === undefined ? (existing?.retryAttempts ?? null) : (input.retry?.attempts ?? null);
    await orUnavailable('database', () =>
      this.webhooks.save({
        accountId,
        ...this.vault.storableUrl(url),
        enabled,
        secretCiphertext: secret
          ? this.vault.sealSigningSecret(secret)
          : (existing?.secretCiphertext ?? null),
        events,
        retryAttempts,
      }),
    );
    await this.announce(accountId);
    const data = {
      url: maskWebhookUrl(url),
      enabled,
      hasSecret: true,
      events,
      retry: retryView(retryAttempts),
    };
    return secret
      ? { message: 'Webhook saved. Store the secret now: it is shown only this once.', data, secret }
      : { message: 'Webhook saved', data };
  }

  async remove(accountId: string) {
    await orUnavailable('database', () => this.webhooks.delete(accountId));
    await this.announce(accountId);
    return { message: 'Webhook removed', data: UNCONFIGURED };
  }

  /**
   * The full URL to save: the one given (checked), or the stored one when none is given or when
   * the one given is the stored URL's masked form, which is what a form filled from `GET /webhook`
   * sends back (saving it would replace the real token with `****`).
   */
  private async destination(given: string | undefined, existing: StoredWebhook | null) {
    const current = existing ? this.vault.openUrl(existing) : undefined;
    if (given === undefined || (current !== undefined && given === maskWebhookUrl(current))) return current;
    await this.checkUrl(given);
    return given;
  }

  private async checkUrl(url: string): Promise<void> {
    const verdict = await this.urls.check(url);
    if (!verdict.ok) {
      throw new ApiError('invalid_webhook_url', `Invalid request body: /url: ${verdict.reason}`, [
        { path: '/url', problem: verdict.reason },
      ]);
    }
  }

  private announce(accountId: string): Promise<void> {
    return this.invalidations
      .publish(ACCESS_INVALIDATION_TOPIC, encodeAccessInvalidation({ v: 1, kind: 'webhook', accountId }))
      .catch(() => undefined);
  }
}
