import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  Events,
  JSONCodec,
  type JsMsg,
  millis,
  nanos,
  type NatsConnection,
} from 'nats';
import type { DeliverableEvent, EventConsumption, EventSource } from './event-source';
import { fromNatsHeaders } from './nats-headers';

const codec = JSONCodec();

export interface JetStreamEventSourceSettings {
  stream: string;
  /** Event subjects start with this (namespace included), e.g. `jumbe.v1.events`. */
  subjectRoot: string;
  /** How long a handed-out event may stay unacknowledged before JetStream offers it again. */
  ackWaitMs: number;
}

/**
 * One durable pull consumer per shard (`dispatch-<shard>`) on a work-queue stream. A dispatcher
 * that takes a shard over recreates its consumer, so every event the previous owner had not
 * acknowledged (it may have died holding them) is offered again at once and in order, instead
 * of after the previous consumer's ack wait.
 */
export class JetStreamEventSource implements EventSource {
  /** Acknowledgements asked for in this turn of the loop, sent together at its end. */
  private acks: JsMsg[] = [];
  /** The flush those acknowledgements wait for (null: none asked for yet in this turn). */
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly connection: NatsConnection,
    private readonly settings: JetStreamEventSourceSettings,
  ) {}

  async consume(shard: number, handler: (event: DeliverableEvent) => void): Promise<EventConsumption> {
    const durable = `dispatch-${shard}`;
    const manager = await this.connection.jetstreamManager();
    await manager.consumers.delete(this.settings.stream, durable).catch((error: Error) => {
      if (!/consumer not found/i.test(error.message)) throw error;
    });
    // Read after the previous consumer is gone: what is stored after this point no earlier
    // consumer of the shard can have handed out.
    const stream = await manager.streams.info(this.settings.stream);
    const since = {
      lastSeq: stream.state.last_seq,
      duplicateWindowMs: millis(stream.config.duplicate_window ?? 0),
    };
    await manager.consumers.add(this.settings.stream, {
      durable_name: durable,
      filter_subject: `${this.settings.subjectRoot}.${shard}.>`,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(this.settings.ackWaitMs),
      max_ack_pending: 10_000,
    });
    const consumer = await this.connection.jetstream().consumers.get(this.settings.stream, durable);
    const messages: ConsumerMessages = await consumer.consume({ max_messages: 256 });
    const loop = (async () => {
      for await (const message of messages) handler(toEvent(message, since, () => this.acknowledge(message)));
    })();
    return {
      stop: async () => {
        await messages.close();
        await loop.catch(() => undefined);
      },
    };
  }

  /**
   * Acknowledges the message at the end of this turn of the loop, with every other one asked for
   * in the same turn and a ping after them, all in one write; resolves once the server answered
   * the ping (so it has them all): one write and one round trip for all of them, instead of a
   * request and reply per acknowledgement. At a steady trickle (one settled event per turn) that
   * is still one write per turn, not one for the acknowledgement and another for the ping.
   */
  private acknowledge(message: JsMsg): Promise<void> {
    this.acks.push(message);
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      const acks = this.acks;
      this.acks = [];
      this.flushing = null;
      for (const ack of acks) ack.ack();
      // Queued behind the acknowledgements before the client writes its buffer (a microtask).
      return this.connection.flush();
    });
    return this.flushing;
  }

  resumed(listener: () => void): () => void {
    let stopped = false;
    const status = this.connection.status();
    void (async () => {
      for await (const change of status) if (!stopped && change.type === Events.Reconnect) listener();
    })().catch(() => undefined);
    // The connection's status stream ends with the connection; until then the calls just stop.
    return () => {
      stopped = true;
    };
  }

  async pending(shard: number): Promise<number> {
    const manager = await this.connection.jetstreamManager();
    const info = await manager.consumers.info(this.settings.stream, `dispatch-${shard}`);
    return info.num_pending + info.num_ack_pending;
  }
}

/**
 * `since`: the stream's last sequence when the consumer was created, and its duplicate window.
 * An event stored after it and delivered for the first time was never handed to anyone before.
 */
function toEvent(
  message: JsMsg,
  since: { lastSeq: number; duplicateWindowMs: number },
  acknowledged: () => Promise<void>,
): DeliverableEvent {
  const { deliveryCount, streamSequence, timestampNanos } = message.info;
  const neverHandedOut = deliveryCount === 1 && streamSequence > since.lastSeq && since.duplicateWindowMs > 0;
  return {
    eventId: message.headers?.get('Nats-Msg-Id') ?? `${message.info.stream}:${message.seq}`,
    subject: message.subject,
    payload: codec.decode(message.data),
    headers: fromNatsHeaders(message.headers),
    ...(neverHandedOut
      ? {
          firstHandOut: {
            storedAt: new Date(millis(timestampNanos)),
            duplicateWindowMs: since.duplicateWindowMs,
          },
        }
      : {}),
    // No confirmation asked per event (no `ackAck`): the acknowledgements of a tick share one
    // write and one flush. The caller acknowledges only what it has settled for good, so one lost on the way
    // only brings the event back to be settled again.
    ack: () => acknowledged(),
    working: async () => message.working(),
  };
}
