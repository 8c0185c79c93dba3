import type { EventPublisher, OutgoingEvent } from '@jumbe/messaging';

/** The durable event stream's producing side, reduced to a list of what was published. */
export class RecordingPublisher implements EventPublisher {
  readonly events: OutgoingEvent[] = [];

  async publish(event: OutgoingEvent): Promise<void> {
    this.events.push(structuredClone(event));
  }
}
