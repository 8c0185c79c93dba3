import {
  DiscardPolicy,
  headers as natsHeaders,
  JSONCodec,
  type Msg,
  type NatsConnection,
  nanos,
  RetentionPolicy,
  type Subscription,
} from 'nats';
import type { LiveEvent, LiveEventCursor, LiveEventLog, LiveEventPosition } from './live-event-log';

const codec = JSONCodec();

/** JetStream's de-duplication header. */
const MESSAGE_ID_HEADER = 'Nats-Msg-Id';

/**
 * Seals what the live stream keeps (message content, for a day) with the deployment's secret key,
 * bound to its subject (and so to its account): the work queue holds an event only until it is
 * delivered, this stream for its whole retention. `SecretBox` (libs/domain) fits.
 */
export interface LiveEventSeal {
  sealBytes(plaintext: Buffer, associatedData: string): Buffer;
  /** Throws when the bytes were not sealed under this key for this subject. */
  openBytes(sealed: Buffer, associatedData: string): Buffer;
}

export interface LiveEventStreamSettings {
  /** The live stream's name (the work queue's name + `_LIVE`). */
  name: string;
  /** The work queue's subjects start with this, e.g. `jumbe.v1.events` (namespace included)... */
  eventSubjectRoot: string;
  /** ...and the live stream's with this, e.g. `jumbe.v1.live`. */
  liveSubjectRoot: string;
}

/** How long the live stream keeps an event: a subscriber may resume within a day. */
export const LIVE_EVENTS_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** At most this much of it, oldest dropped first. */
export const LIVE_EVENTS_MAX_BYTES = 512 * 1024 * 1024;
/** A copy of an event (each gateway copies it) within this window is stored once. */
const COPY_DUPLICATE_WINDOW_MS = 60 * 60 * 1000;
/** An ordered consumer a gateway lost (crash) is removed by the server after this idle time. */
const CONSUMER_INACTIVE_MS = 30_000;

/** Creates (or updates) the live stream; safe to run from every gateway at start. */
export async function ensureLiveEventStream(
  connection: NatsConnection,
  settings: LiveEventStreamSettings,
): Promise<void> {
  const manager = await connection.jetstreamManager();
  const config = {
    name: settings.name,
    subjects: [`${settings.liveSubjectRoot}.>`],
    retention: RetentionPolicy.Limits,
    max_age: nanos(LIVE_EVENTS_MAX_AGE_MS),
    max_bytes: LIVE_EVENTS_MAX_BYTES,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(COPY_DUPLICATE_WINDOW_MS),
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
 * The live stream on JetStream. The events stream is a work queue (an event leaves it once its
 * delivery is recorded) on which NATS 2.9 allows no consumer beside the dispatchers' (nor a
 * mirror or source), so each gateway copies every event it hears published on the event subjects
 * into a stream that keeps them (LIVE_EVENTS_MAX_AGE_MS, LIVE_EVENTS_MAX_BYTES). The copies of
 * all gateways carry the event's id, so the stream keeps one; one gateway's copies keep the order
 * they were published in, so the first copy of each event is in order too. An event published
 * while no gateway runs is not copied (nobody could have been streaming it).
 *
 * A subscriber reads through an ordered consumer (ephemeral, unacknowledged, filtered on its
 * account's subjects), removed when the subscriber goes and by the server if the gateway dies.
 */
export class JetStreamLiveEventLog implements LiveEventLog {
  private copier: Subscription | null = null;

  constructor(
    private readonly connection: NatsConnection,
    private readonly settings: LiveEventStreamSettings,
    private readonly seal: LiveEventSeal,
  ) {}

  async start(): Promise<void> {
    if (this.copier) return;
    await ensureLiveEventStream(this.connection, this.settings);
    const root = this.settings.eventSubjectRoot;
    this.copier = this.connection.subscribe(`${root}.>`, {
      callback: (error, message) => {
        if (!error) this.copy(message);
      },
    });
  }

  async stop(): Promise<void> {
    const copier = this.copier;
    this.copier = null;
    if (copier && !this.connection.isClosed()) copier.unsubscribe();
  }

  async position(): Promise<LiveEventPosition> {
    const manager = await this.connection.jetstreamManager();
    const { state } = await manager.streams.info(this.settings.name);
    return {
      oldestKept: state.messages === 0 ? state.last_seq + 1 : state.first_seq,
      latest: state.last_seq,
    };
  }

  async follow(accountId: string, after: number): Promise<LiveEventCursor> {
    const consumer = await this.connection.jetstream().consumers.get(this.settings.name, {
      filterSubjects: `${this.settings.liveSubjectRoot}.*.${accountId}.>`,
      opt_start_seq: after + 1,
      inactive_threshold: CONSUMER_INACTIVE_MS,
    });
    // A small buffer: a subscriber reads at its own pace, and the server holds the rest.
    const messages = await consumer.consume({ max_messages: 64 });
    const seal = this.seal;
    return {
      close: async () => {
        await messages.close();
        // Gone with its reader, not left for the server's inactivity threshold.
        await consumer.delete().catch(() => undefined);
      },
      async *[Symbol.asyncIterator]() {
        for await (const message of messages) {
          const event: LiveEvent = {
            seq: message.seq,
            eventId: message.headers?.get(MESSAGE_ID_HEADER) ?? String(message.seq),
            subject: message.subject,
            payload: openedOrNull(seal, message.data, message.subject),
          };
          yield event;
        }
      },
    };
  }

  /** Copies one published event under the live root, its id kept (published, not confirmed). */
  private copy(message: Msg): void {
    const eventRoot = this.settings.eventSubjectRoot;
    if (!message.subject.startsWith(`${eventRoot}.`)) return;
    const subject = `${this.settings.liveSubjectRoot}${message.subject.slice(eventRoot.length)}`;
    const eventId = message.headers?.get(MESSAGE_ID_HEADER);
    const headers = natsHeaders();
    if (eventId) headers.set(MESSAGE_ID_HEADER, eventId);
    try {
      this.connection.publish(subject, this.seal.sealBytes(Buffer.from(message.data), subject), { headers });
    } catch {
      // Closed or draining: this gateway is stopping; the other gateways copy it.
    }
  }
}

/**
 * The event's JSON, or null when it cannot be opened (sealed under another secret key, e.g. before
 * a rotation) or is not JSON: the reader checks every payload against the event schemas.
 */
function openedOrNull(seal: LiveEventSeal, data: Uint8Array, subject: string): unknown {
  try {
    return codec.decode(seal.openBytes(Buffer.from(data), subject));
  } catch {
    return null;
  }
}
