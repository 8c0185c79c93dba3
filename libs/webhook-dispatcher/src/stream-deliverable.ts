import type { StreamEvent } from '@jumbe/contracts';
import type { DeliverableEvent } from '@jumbe/messaging';

/** A stream event whose payload the shard owner validated against the event schemas. */
export type StreamDeliverable = DeliverableEvent<StreamEvent>;
