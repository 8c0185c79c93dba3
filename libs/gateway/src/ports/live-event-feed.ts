import type { LiveEventCursor, LiveEventPosition } from '@jumbe/messaging';

/**
 * The events kept for live subscribers, bound by the composition root: the JetStream live stream
 * (distributed, or all-in-one with NATS) or the all-in-one process's memory.
 */
export abstract class LiveEventFeed {
  /** Starts keeping events (a gateway copies them into the JetStream live stream). */
  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;
  abstract position(): Promise<LiveEventPosition>;
  /** The account's events with a sequence above `after`, then each new one. */
  abstract follow(accountId: string, after: number): Promise<LiveEventCursor>;
}
