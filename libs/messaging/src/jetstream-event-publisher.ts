import { JSONCodec, type JetStreamClient, type NatsConnection, RetentionPolicy } from 'nats';
import { BusUnavailableError } from './bus-errors';
import type { EventPublisher, OutgoingEvent } from './event-publisher';
import { toNatsHeaders } from './nats-headers';

export interface EventStreamSettings {
  name: string;
  /** Every event subject starts with this (a deployment namespace included). */
  subjectRoot: string;
  /** How long JetStream remembers event ids to drop duplicates (a redelivered network message). */
  duplicateWindowMs: number;
}

const codec = JSONCodec();

/** Creates (or updates) the stream the events live in; safe to run from every process at start. */
export async function ensureEventStream(
  connection: NatsConnection,
  settings: EventStreamSettings,
): Promise<void> {
  const manager = await connection.jetstreamManager();
  const config = {
    name: settings.name,
    subjects: [`${settings.subjectRoot}.>`],
    // A work queue: an event leaves the stream once its delivery is recorded and acknowledged,
    // and each shard's consumer (disjoint subjects) restarts from the oldest unacknowledged one.
    retention: RetentionPolicy.Workqueue,
    duplicate_window: settings.duplicateWindowMs * 1_000_000,
  };
  try {
    await manager.streams.info(settings.name);
    await manager.streams.update(settings.name, config);
  } catch (error) {
    if (!/stream not found/i.test((error as Error).message)) throw error;
    await manager.streams.add(config);
  }
}

/** Publishes events to the JetStream stream; resolves once JetStream stored them. */
export class JetStreamEventPublisher implements EventPublisher {
  private readonly jetstream: JetStreamClient;

  constructor(
    connection: NatsConnection,
    /** Prefixed to subjects (a deployment namespace, with its dot), or ''. */
    private readonly namespace: string,
  ) {
    this.jetstream = connection.jetstream();
  }

  async publish(event: OutgoingEvent): Promise<void> {
    try {
      await this.jetstream.publish(`${this.namespace}${event.subject}`, codec.encode(event.payload), {
        msgID: event.eventId,
        headers: toNatsHeaders(event.headers),
      });
    } catch (error) {
      throw new BusUnavailableError(`event stream did not store the event: ${(error as Error).message}`);
    }
  }
}
