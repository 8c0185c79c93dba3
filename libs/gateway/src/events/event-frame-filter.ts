import { streamEventSchema } from '@jumbe/contracts';
import { deliveryIdForEvent } from '@jumbe/domain';
import type { LiveEvent } from '../ports/live-event-feed';
import type { EventFrame } from './stream-frame';

/**
 * The frame a stream sends for a kept event, or null when it is not for this stream: another
 * account's (the feed filters by subject already; the payload's own account is checked again, so
 * an account never sees another's event whatever a subject says), a type the stream did not ask
 * for, or not one of the event schemas (nothing read from the bus is taken on trust).
 */
export function eventFrameFor(
  event: LiveEvent,
  accountId: string,
  types: ReadonlySet<string>,
): EventFrame | null {
  const parsed = streamEventSchema.safeParse(event.payload);
  if (!parsed.success) return null;
  const payload = parsed.data;
  if (payload.customerId !== accountId || !types.has(payload.event)) return null;
  // The id a webhook delivery of the same event carries, so a client reading both de-duplicates.
  const envelope = { ...payload, deliveryId: deliveryIdForEvent(event.eventId) };
  return { kind: 'event', seq: event.seq, type: payload.event, envelope };
}
