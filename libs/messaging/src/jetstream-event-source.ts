import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  JSONCodec,
  type JsMsg,
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
      for await (const message of messages) handler(toEvent(message));
    })();
    return {
      stop: async () => {
        await messages.close();
        await loop.catch(() => undefined);
      },
    };
  }

  async pending(shard: number): Promise<number> {
    const manager = await this.connection.jetstreamManager();
    const info = await manager.consumers.info(this.settings.stream, `dispatch-${shard}`);
    return info.num_pending + info.num_ack_pending;
  }
}

function toEvent(message: JsMsg): DeliverableEvent {
  return {
    eventId: message.headers?.get('Nats-Msg-Id') ?? `${message.info.stream}:${message.seq}`,
    subject: message.subject,
    payload: codec.decode(message.data),
    headers: fromNatsHeaders(message.headers),
    ack: async () => {
      await message.ackAck();
    },
    working: async () => message.working(),
  };
}
