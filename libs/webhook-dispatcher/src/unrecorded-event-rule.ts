import type { StreamDeliverable } from './stream-deliverable';

/** How far WhatsApp's clock and the stream server's may disagree; past it, nothing is assumed. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Whether no attempt of this stream event can have been recorded, so its first POST need not
 * wait for the already-recorded check (a database round trip). True when the event log proved it
 * (`unrecorded`: the all-in-one log looked for records in the statement that stored the event), or
 * when both hold:
 *
 * - the stream proves no consumer was handed this stored copy before (`firstHandOut`: its first
 *   delivery, stored after the shard's consumer was created by this dispatcher);
 * - no earlier copy of the same event id can exist: the stream drops a copy published within its
 *   duplicate window, so an earlier copy (which may have been delivered and recorded) exists only
 *   if this one was stored more than the window after it. An earlier copy was stored no sooner
 *   than the message was sent (WhatsApp's own timestamp), so a copy stored less than the window
 *   (minus clock skew) after the message was sent is the first. Events without the network's
 *   own time (others than `message.received`, or a message whose timestamp the relay had to
 *   fill in with its own) are always checked.
 */
export function cannotBeRecordedYet(event: StreamDeliverable): boolean {
  // The all-in-one event log proves it outright (see DeliverableEvent.unrecorded).
  if (event.unrecorded) return true;
  const handOut = event.firstHandOut;
  const payload = event.payload;
  if (!handOut || payload.event !== 'message.received') return false;
  const sent = payload.message.messageTimestamp;
  // The relay stamps `timestamp` itself, and `messageTimestamp` too when the network gave none.
  if (sent === payload.timestamp) return false;
  const sentAt = Date.parse(sent);
  if (Number.isNaN(sentAt)) return false;
  const storedAfterSent = handOut.storedAt.getTime() - sentAt;
  return storedAfterSent > -CLOCK_SKEW_MS && storedAfterSent < handOut.duplicateWindowMs - CLOCK_SKEW_MS;
}
