/**
 * The retained copy of the event stream that live subscribers read (`GET /api/v1/events`): unlike
 * the dispatchers' work queue, which forgets an event once its delivery is recorded, it keeps
 * every event for a while under a sequence number, so a subscriber that reconnects can go on from
 * the last one it saw.
 */
export interface LiveEvent {
  /** Where the event stands in the retained log: increasing, never reused within the log. */
  seq: number;
  eventId: string;
  /** The event subject (`…events.<shard>.<accountId>.<sessionId>`; `live` instead of `events` on JetStream). */
  subject: string;
  payload: unknown;
}

/** What the log still keeps: `oldestKept` is `latest + 1` when it keeps nothing. */
export interface LiveEventPosition {
  oldestKept: number;
  latest: number;
}

/** One subscriber's read of the log: its account's events, oldest first, then each new one. */
export interface LiveEventCursor extends AsyncIterable<LiveEvent> {
  close(): Promise<void>;
}

/** Thrown by a cursor whose next event the log dropped before it was read (a reader too slow). */
export class LiveEventsLostError extends Error {
  constructor(readonly nextSeq: number) {
    super(`events from sequence ${nextSeq} on are no longer kept: the reader fell behind`);
    this.name = 'LiveEventsLostError';
  }
}

export interface LiveEventLog {
  /** Starts keeping events (JetStream: copying them from the work queue); idempotent. */
  start(): Promise<void>;
  stop(): Promise<void>;
  position(): Promise<LiveEventPosition>;
  /** The account's events with a sequence above `after`, then new ones as they are kept. */
  follow(accountId: string, after: number): Promise<LiveEventCursor>;
}

/** The account token of an event subject (`<root>.<shard>.<accountId>.<sessionId>`), or null. */
export function accountOfEventSubject(subject: string): string | null {
  const tokens = subject.split('.');
  return tokens.length >= 3 ? (tokens[tokens.length - 2] ?? null) : null;
}
