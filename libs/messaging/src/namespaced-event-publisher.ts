import type { EventPublisher } from './event-publisher';

/** The event-stream twin of NamespacedMessageBus: subjects under `<namespace>.`. */
export class NamespacedEventPublisher implements EventPublisher {
  constructor(
    private readonly inner: EventPublisher,
    private readonly namespace: string,
  ) {}

  publish(subject: string, eventId: string, payload: unknown): Promise<void> {
    return this.inner.publish(`${this.namespace}.${subject}`, eventId, payload);
  }
}
