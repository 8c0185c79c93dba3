import type { BusHeaders } from './message-bus';

/** A stored event handed to its consumer; it stays stored until acknowledged. */
export interface DeliverableEvent<Payload = unknown> {
  eventId: string;
  subject: string;
  payload: Payload;
  /** The headers it was published with, where the stream keeps them (JetStream does). */
  headers?: BusHeaders;
  /**
   * Present only where the stream can prove it (JetStream): no consumer was handed this stored
   * copy before this one (its first delivery, and stored after this consumer was created, so no
   * earlier owner of the shard can have seen it). A copy of the same event id published again
   * after the stream's duplicate window is a new stored copy, so this says nothing about earlier
   * copies: `duplicateWindowMs` and `storedAt` let the consumer tell whether one can exist.
   */
  firstHandOut?: { storedAt: Date; duplicateWindowMs: number };
  /**
   * Present only where the stream proves it another way (the all-in-one event log, which shares
   * its database with the delivery records): the statement that stored this copy found no
   * delivery attempt recorded under its id, and none was settled since, so no attempt of it can be
   * recorded yet.
   */
  unrecorded?: true;
  /**
   * Done with it: the stream forgets it. JetStream: resolves once the server has read the
   * acknowledgement (not confirmed per event); one lost on the way only makes the stream offer
   * the event again.
   */
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
  /**
   * Where the stream hands events out over a connection that can break (JetStream): calls
   * `listener` each time that connection is back after a break. What was handed out during the
   * break may never have arrived, and the stream offers it again only when its acknowledgement
   * wait runs out, after newer events: a consumer that keeps order consumes its shards afresh.
   * Returns a function that stops the calls.
   */
  resumed?(listener: () => void): () => void;
}
