import type { BusHeaders } from './message-bus';

/** One event on its way into the durable stream. */
export interface OutgoingEvent {
  /** De-duplication id: publishing the same id twice stores the event once. */
  eventId: string;
  subject: string;
  /** The shard whose dispatcher delivers it (also the subject's shard token). */
  shard: number;
  payload: unknown;
  /** Carried beside the payload where the stream can (JetStream headers): the trace context. */
  headers?: BusHeaders;
}

/**
 * The producing side of the durable event stream. `publish` resolves only once the stream has
 * stored the event, so the caller may then acknowledge the source (the messaging network).
 */
export interface EventPublisher {
  publish(event: OutgoingEvent): Promise<void>;
}
