import { createHmac } from 'node:crypto';
import { decodeWebhookSecret } from './webhook-secret';

/** Header names of a delivery (spec, Events → Delivery; CONTRACT §6). */
export const WEBHOOK_HEADERS = {
  event: 'X-Service-Event',
  delivery: 'X-Service-Delivery',
  timestamp: 'X-Service-Timestamp',
  signature: 'X-Service-Signature',
  standardId: 'webhook-id',
  standardTimestamp: 'webhook-timestamp',
  standardSignature: 'webhook-signature',
} as const;

export interface SignWebhookInput {
  /** The account's signing secret, `whsec_<base64>`. */
  secret: string;
  /** The delivery id: `X-Service-Delivery`, `webhook-id`, and `deliveryId` in the body. */
  deliveryId: string;
  /** When the delivery is signed (normally: now, at the attempt). */
  timestamp: Date;
  /** The exact body that will be sent, byte for byte. */
  body: string;
}

/**
 * `sha256=` + lowercase hex HMAC-SHA256 over `<timestamp>.<raw body>`, keyed with the whole secret
 * string (prefix included) as UTF-8 (spec, Authentication item 6; CONTRACT §6).
 */
export function serviceSignature(secret: string, timestamp: string, body: string): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.`, 'utf8');
  hmac.update(body, 'utf8');
  return `sha256=${hmac.digest('hex')}`;
}

/**
 * Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 over `<id>.<unix seconds>.<body>`, keyed
 * with the base64-decoded part of the secret after `whsec_` (CONTRACT §6, extension).
 */
export function standardWebhookSignature(
  secret: string,
  id: string,
  unixSeconds: number,
  body: string,
): string {
  const hmac = createHmac('sha256', decodeWebhookSecret(secret));
  hmac.update(`${id}.${unixSeconds}.`, 'utf8');
  hmac.update(body, 'utf8');
  return `v1,${hmac.digest('base64')}`;
}

/**
 * The signature headers of one delivery: `X-Service-Timestamp`, `X-Service-Signature`, and the
 * Standard Webhooks `webhook-id`, `webhook-timestamp`, `webhook-signature`. The dispatcher adds
 * `X-Service-Event`, `X-Service-Delivery` and `Content-Type` itself.
 */
export function signWebhook(input: SignWebhookInput): Record<string, string> {
  const { secret, deliveryId, timestamp, body } = input;
  const millis = timestamp.getTime();
  if (!Number.isFinite(millis)) throw new Error('signWebhook needs a valid timestamp');
  if (deliveryId.length === 0) throw new Error('signWebhook needs a delivery id');
  const iso = timestamp.toISOString();
  const unixSeconds = Math.floor(millis / 1000);
  return {
    [WEBHOOK_HEADERS.timestamp]: iso,
    [WEBHOOK_HEADERS.signature]: serviceSignature(secret, iso, body),
    [WEBHOOK_HEADERS.standardId]: deliveryId,
    [WEBHOOK_HEADERS.standardTimestamp]: String(unixSeconds),
    [WEBHOOK_HEADERS.standardSignature]: standardWebhookSignature(secret, deliveryId, unixSeconds, body),
  };
}
