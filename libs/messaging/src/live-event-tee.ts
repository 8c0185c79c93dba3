import type { EventPublisher, OutgoingEvent } from './event-publisher';
import type { MemoryLiveEventLog } from './memory-live-event-log';

/**
 * The all-in-one event publisher with live subscribers: each event is stored in the durable log
 * first (the dispatchers' source), then kept for live subscribers; one the log refused is not.
 */
export class LiveEventTee implements EventPublisher {
  constructor(
    private readonly durable: EventPublisher,
    private readonly live: MemoryLiveEventLog,
  ) {}

  async publish(event: OutgoingEvent): Promise<void> {
    await this.durable.publish(event);
    this.live.append({ eventId: event.eventId, subject: event.subject, payload: event.payload });
  }
}
