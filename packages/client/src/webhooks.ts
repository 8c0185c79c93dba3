// @jumbe/client/webhooks: verify and de-duplicate webhook deliveries (Node: node:crypto). The
// verifier is libs/webhook-receiver's, folded into this package when it is built (build.mjs); here
// its payload is typed with the events generated from the OpenAPI document.
import {
  type VerifiedDelivery,
  type VerifyDeliveryOptions,
  verifyDelivery as verifyWithReceiver,
} from '@jumbe/webhook-receiver';
import type { WebhookEvent } from './webhook-events';

export {
  DEFAULT_TOLERANCE_SECONDS,
  DeliveryDeduplicator,
  type DeliveryDeduplicatorOptions,
  type DeliveryHeaders,
  type VerifiedDelivery,
  type VerifyDeliveryOptions,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from '@jumbe/webhook-receiver';
export type * from './webhook-events';

/**
 * Checks a delivery's signature (HMAC-SHA256 over `<timestamp>.<raw body>`, constant-time) and
 * timestamp, and returns its parsed event; throws `WebhookVerificationError` (with `reason`) otherwise.
 */
export function verifyDelivery<T = WebhookEvent>(options: VerifyDeliveryOptions): VerifiedDelivery<T> {
  return verifyWithReceiver<T>(options);
}
