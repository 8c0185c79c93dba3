import { z } from 'zod';
import type { DeliveryFacts } from '../../http/delivery-view';
import { eventEnvelopeFields } from './event-envelope';

/**
 * One delivery attempt as the dispatcher records it and the gateway reads it back: the Delivery
 * of CONTRACT §6 (its shape is `deliverySchema`'s), with what only the record keeps.
 */
export interface DeliveryRecord extends DeliveryFacts {
  accountId: string;
  /** The stream event it delivered; null for test events and hand-made redeliveries. */
  eventId: string | null;
  /** The event body it carried. */
  payload: unknown;
  /** The X-Request-Id of the API request that asked for it (a test send); null for stream events. */
  requestId?: string | null;
}

/** An event's latest recorded attempt: what a dispatcher goes on from after a restart. */
export type LastAttempt = Pick<DeliveryRecord, 'attempt' | 'status' | 'attemptedAt'>;

/**
 * A record's payload as a redelivery reads it back: any event's body (its name and envelope; the
 * rest is posted as recorded). An attempt recorded without its body (the database refused it)
 * fails this and cannot be redelivered.
 */
export const recordedPayloadSchema = z.looseObject({
  event: z.string(),
  ...eventEnvelopeFields,
  deliveryId: z.string().optional(),
});
