import type { BusHeaders } from './message-bus';

/** A stored event handed to its consumer; it stays stored until acknowledged. */
export interface DeliverableEvent<Payload = unknown> {
  eventId: string;
  subject: string;
  payload: Payload;
  /** The headers it was published with, where the stream keeps them (JetStream does). */
  headers?: BusHeaders;
  /** Done with it: the stream forgets it. */
  ack(): Promise<void>;
  /** Still waiting its turn: keeps the stream from handing it to someone else meanwhile. */
  working(): Promise<void>;
}

export interface EventConsumption {
  /** Stops taking new events; unacknowledged ones go to the shard's next consumer. */
  stop(): Promise<void>;
}

/** The consuming side of the durable event stream, per shard (the dispatcher that owns it). */
export interface EventSource {
  /** Hands over the shard's stored events, oldest first, then new ones as they arrive. */
  consume(shard: number, handler: (event: DeliverableEvent) => void): Promise<EventConsumption>;
  /** Events of the shard stored but not yet acknowledged by its consumer (lag), where the stream tells. */
  pending?(shard: number): Promise<number>;
}
