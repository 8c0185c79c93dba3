import { JSONCodec, type JetStreamClient, type NatsConnection } from 'nats';
import { BusUnavailableError } from './bus-errors';
import type { EventPublisher } from './event-publisher';

export interface EventStreamSettings {
  name: string;
  subjects: string[];
  /** How long JetStream remembers event ids to drop duplicates (a redelivered network message). */
  duplicateWindowMs: number;
}

const codec = JSONCodec();

/** Publishes events to a JetStream stream, created (or updated) on first use. */
export class JetStreamEventPublisher implements EventPublisher {
  private readonly jetstream: JetStreamClient;

  private constructor(connection: NatsConnection) {
    this.jetstream = connection.jetstream();
  }

  static async open(
    connection: NatsConnection,
    settings: EventStreamSettings,
  ): Promise<JetStreamEventPublisher> {
    const manager = await connection.jetstreamManager();
    const config = {
      name: settings.name,
      subjects: settings.subjects,
      duplicate_window: settings.duplicateWindowMs * 1_000_000,
    };
    try {
      await manager.streams.info(settings.name);
      await manager.streams.update(settings.name, config);
    } catch (error) {
      if (!/stream not found/i.test((error as Error).message)) throw error;
      await manager.streams.add(config);
    }
    return new JetStreamEventPublisher(connection);
  }

  async publish(subject: string, eventId: string, payload: unknown): Promise<void> {
    try {
      await this.jetstream.publish(subject, codec.encode(payload), { msgID: eventId });
    } catch (error) {
      throw new BusUnavailableError(`event stream did not store the event: ${(error as Error).message}`);
    }
  }
}
