import type { EventPublisher, OutgoingEvent } from '@jumbe/messaging';

/** The stream's duplicate window in production (start-infrastructure.ts): one hour. */
const DEFAULT_WINDOW_MS = 60 * 60 * 1000;

/**
 * The durable event stream's producing side as JetStream stores it: a publish whose event id (its
 * `Nats-Msg-Id`) was already stored within the duplicate window is acknowledged but not stored
 * again. Tests of redelivery count `stored`, so a relay whose event id were not stable per
 * network message (random, or per attempt) would show the duplicate a webhook would receive.
 */
export class DeduplicatingPublisher implements EventPublisher {
  /** What the stream holds, in order. */
  readonly stored: OutgoingEvent[] = [];
  /** Every publish, duplicates included. */
  publishes = 0;
  private readonly storedAt = new Map<string, number>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly windowMs = DEFAULT_WINDOW_MS,
  ) {}

  async publish(event: OutgoingEvent): Promise<void> {
    this.publishes += 1;
    const at = this.storedAt.get(event.eventId);
    if (at !== undefined && this.now() - at < this.windowMs) return;
    this.storedAt.set(event.eventId, this.now());
    this.stored.push(structuredClone(event));
  }
}
