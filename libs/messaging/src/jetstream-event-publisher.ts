import { headers as natsHeaders, type NatsConnection, RetentionPolicy } from 'nats';
import { BusUnavailableError } from './bus-errors';
import type { EventPublisher, OutgoingEvent } from './event-publisher';
import { readPublishAck } from './jetstream-publish-ack';
import { toNatsHeaders } from './nats-headers';
import { NatsReplyInbox } from './nats-reply-inbox';

export interface EventStreamSettings {
  name: string;
  /** Every event subject starts with this (a deployment namespace included). */
  subjectRoot: string;
  /** How long JetStream remembers event ids to drop duplicates (a redelivered network message). */
  duplicateWindowMs: number;
}

/** JetStream's de-duplication header (what nats.js' `msgID` option sets). */
const MESSAGE_ID_HEADER = 'Nats-Msg-Id';

/** How long a publish waits for JetStream's acknowledgement: nats.js' JetStream default. */
export const PUBLISH_ACK_TIMEOUT_MS = 5_000;

const encoder = new TextEncoder();

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

/**
 * Publishes events to the JetStream stream; resolves once JetStream stored them (or recognised a
 * duplicate event id within the stream's window), BusUnavailableError otherwise: no stream for
 * the subject (NATS' 503 no responders), JetStream refusing it, no answer in time, or no
 * connection.
 *
 * What nats.js' `jetstream().publish` sends (the payload, `Nats-Msg-Id` beside the given headers,
 * a request for the acknowledgement), but through our own reply inbox (NatsReplyInbox): nats.js'
 * muxed request builds a `Cancelled` error with a captured stack after every acknowledgement,
 * 3.6% of a session worker's busy time on the inbound path (BENCHMARKS.md).
 */
export class JetStreamEventPublisher implements EventPublisher {
  private readonly acks: NatsReplyInbox;

  constructor(
    connection: NatsConnection,
    /** Prefixed to subjects (a deployment namespace, with its dot), or ''. */
    private readonly namespace: string,
    private readonly ackTimeoutMs: number = PUBLISH_ACK_TIMEOUT_MS,
  ) {
    this.acks = new NatsReplyInbox(connection);
    void connection.closed().then(() => this.acks.close('the NATS connection closed'));
  }

  async publish(event: OutgoingEvent): Promise<void> {
    const headers = toNatsHeaders(event.headers) ?? natsHeaders();
    headers.set(MESSAGE_ID_HEADER, event.eventId);
    try {
      const reply = await this.acks.request(
        `${this.namespace}${event.subject}`,
        encoder.encode(JSON.stringify(event.payload)),
        this.ackTimeoutMs,
        headers,
      );
      readPublishAck(reply.data);
    } catch (error) {
      throw new BusUnavailableError(`event stream did not store the event: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}
