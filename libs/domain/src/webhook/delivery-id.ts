import { createHash, randomUUID } from 'node:crypto';

/**
 * Fixed namespace of delivery ids derived from event ids. Changing it would give every event a new
 * delivery id, so a redelivery after an upgrade would no longer be recognised as a duplicate.
 */
export const DELIVERY_ID_NAMESPACE = 'ed11a6c8-0f32-48e4-af3d-e76a68259a1a';

const NAMESPACE_BYTES = Buffer.from(DELIVERY_ID_NAMESPACE.replace(/-/g, ''), 'hex');

/**
 * The delivery id of an event's automatic delivery: the same event id always gives the same id, so
 * a dispatcher that crashed after POSTing but before recording delivers again under the same
 * `X-Service-Delivery`, and receivers de-duplicate it. Layout of an RFC 4122 name-based UUID
 * (version 5 nibble, RFC variant bits), computed like v5 but with SHA-256: the first 16 bytes of
 * sha256(namespace bytes ‖ UTF-8 event id).
 */
export function deliveryIdForEvent(eventId: string): string {
  if (eventId.length === 0) throw new Error('deliveryIdForEvent needs an event id');
  const bytes = createHash('sha256').update(NAMESPACE_BYTES).update(eventId, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A fresh random delivery id (UUID v4): test events and deliveries redone by hand. */
export function newDeliveryId(): string {
  return randomUUID();
}
