import { z } from 'zod';

/**
 * Fields every webhook event carries (interface spec, Events). On the event stream an event has
 * no delivery id yet; the dispatcher adds `deliveryId` (the `X-Service-Delivery` header, inside
 * the body so the signature covers it) when it posts.
 */
export const eventEnvelopeFields = {
  /** When the event was created (ISO 8601). */
  timestamp: z.string(),
  /** The account that owns the session and the webhook. */
  customerId: z.string(),
  /** The session that produced the event. */
  sessionId: z.string(),
};

/** The field the dispatcher adds to every event it posts. */
export const deliveryIdField = { deliveryId: z.string() };

/** The envelope of an event a session produced. */
export type EventEnvelope = z.output<z.ZodObject<typeof eventEnvelopeFields>>;

/** The envelope of an event of `sessionId` of `accountId`, created `at`. */
export function eventEnvelope(accountId: string, sessionId: string, at: Date): EventEnvelope {
  return { timestamp: at.toISOString(), customerId: accountId, sessionId };
}
