/** One kept event, as a live subscriber reads it. */
export interface LiveEvent {
  /** Where the event stands in the feed: increasing, never reused. */
  seq: number;
  eventId: string;
  /** The event subject (`…<shard>.<accountId>.<sessionId>`). */
  subject: string;
  payload: unknown;
}

/** What the feed still keeps: `oldestKept` is `latest + 1` when it keeps nothing. */
export interface LiveEventPosition {
  oldestKept: number;
  latest: number;
}

/**
 * One subscriber's read of the feed: its account's events, oldest first, then each new one. It
 * throws LiveEventsLostError (@jumbe/messaging) when the feed dropped its next event unread.
 */
export interface LiveEventCursor extends AsyncIterable<LiveEvent> {
  close(): Promise<void>;
}

/**
 * The events kept for live subscribers, bound by the composition root: the JetStream live stream
 * (distributed, or all-in-one with NATS) or the all-in-one process's memory (LiveEventLog of
 * @jumbe/messaging satisfies it).
 */
export abstract class LiveEventFeed {
  /** Starts keeping events (a gateway copies them into the JetStream live stream). */
  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;
  abstract position(): Promise<LiveEventPosition>;
  /** The account's events with a sequence above `after`, then each new one. */
  abstract follow(accountId: string, after: number): Promise<LiveEventCursor>;
}
