/**
 * The producing side of the durable event stream. `publish` resolves only once the stream has
 * stored the event, so the caller may then acknowledge the source (the messaging network).
 * Publishing the same `eventId` twice stores it once.
 */
export interface EventPublisher {
  publish(subject: string, eventId: string, payload: unknown): Promise<void>;
}

export interface StoredEvent {
  subject: string;
  eventId: string;
  payload: unknown;
}
