import { maskWebhookUrl, signWebhook } from '@jumbe/domain';
import { ConnectionPool, EgressError, safeFetch } from '@jumbe/egress';
import type { DeliveryRecord } from '@jumbe/contracts';

/** CONTRACT §6: 10 s per attempt, and at most 1 KiB of the receiver's answer is kept. */
export const DELIVERY_TIMEOUT_MS = 10_000;
export const RESPONSE_KEPT_BYTES = 1_024;
/**
 * Connections open at once to one account's receiver; further POSTs would wait for one. The
 * dispatcher admits no more POSTs of one account than this (see FairSlots), so none waits here.
 */
export const CONNECTIONS_PER_ACCOUNT = 32;

export interface Delivery {
  accountId: string;
  eventId: string | null;
  deliveryId: string;
  /** Which attempt of the delivery this is (1 unless retrying; a retry keeps the delivery id). */
  attempt?: number;
  /** The full URL posted to; the record keeps only its masked form. */
  url: string;
  secret: string;
  /** The event body without `deliveryId` (added here, so the signature covers it). */
  payload: { event: string; sessionId: string; timestamp: string } & Record<string, unknown>;
  /** The trace context its stream event was published with (headers), so the POST joins that trace. */
  trace?: Readonly<Record<string, string>>;
}

/**
 * Makes one delivery attempt: signs the body, POSTs it once (no redirects, no retries, private
 * addresses refused at connect time) and describes the outcome as the record to store.
 */
export class WebhookPoster {
  /**
   * Kept-alive connections per account, so a busy webhook does not pay a handshake per delivery;
   * every new connection still passes the connect-time address check.
   */
  private readonly connections: ConnectionPool;

  constructor(private readonly allowPrivateNetworks: boolean) {
    this.connections = new ConnectionPool({
      allowPrivateNetworks,
      maxSocketsPerDestination: CONNECTIONS_PER_ACCOUNT,
    });
  }

  async post(delivery: Delivery): Promise<DeliveryRecord> {
    const { event, ...rest } = delivery.payload;
    const payload = { event, deliveryId: delivery.deliveryId, ...rest };
    const body = JSON.stringify(payload);
    const attemptedAt = new Date();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Jumbe-Webhooks/1',
      'x-service-event': event,
      'x-service-delivery': delivery.deliveryId,
      ...signWebhook({
        secret: delivery.secret,
        deliveryId: delivery.deliveryId,
        timestamp: attemptedAt,
        body,
      }),
    };
    const base = {
      id: delivery.deliveryId,
      accountId: delivery.accountId,
      eventId: delivery.eventId,
      event,
      sessionId: delivery.payload.sessionId,
      url: maskWebhookUrl(delivery.url),
      payload,
      createdAt: new Date(delivery.payload.timestamp),
      attemptedAt,
      attempt: delivery.attempt ?? 1,
    };
    const started = Date.now();
    try {
      const response = await safeFetch(delivery.url, {
        method: 'POST',
        headers,
        body,
        timeoutMs: DELIVERY_TIMEOUT_MS,
        maxResponseBytes: RESPONSE_KEPT_BYTES,
        allowPrivateNetworks: this.allowPrivateNetworks,
        pool: this.connections,
        poolKey: delivery.accountId,
      });
      const ok = response.status >= 200 && response.status < 300;
      return {
        ...base,
        status: ok ? 'success' : 'failed',
        statusCode: response.status,
        error: ok ? null : describeStatus(response.status),
        response: response.body.toString('utf8'),
        durationMs: response.durationMs,
      };
    } catch (error) {
      const message =
        error instanceof EgressError ? error.message : `delivery failed: ${(error as Error).message}`;
      return {
        ...base,
        status: 'failed',
        statusCode: null,
        error: message,
        response: null,
        durationMs: Date.now() - started,
      };
    }
  }
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `receiver answered ${status}; redirects are not followed`;
  return `receiver answered ${status}`;
}
