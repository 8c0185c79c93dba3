import { streamEventSchema } from '@jumbe/contracts';
import type { DeliverableEvent } from '@jumbe/messaging';
import type { StreamDeliverable } from './stream-deliverable';

/**
 * Whether a stream event's payload is one of the webhook event schemas (libs/contracts). What a
 * producer wrote is checked where it is read, so no shape is ever taken on trust.
 */
export function isStreamDeliverable(event: DeliverableEvent): event is StreamDeliverable {
  return streamEventSchema.safeParse(event.payload).success;
}
