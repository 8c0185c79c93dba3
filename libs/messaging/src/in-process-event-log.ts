import type { EventPublisher, StoredEvent } from './event-publisher';

/**
 * The all-in-one twin of the event stream: events stay in this process, de-duplicated by id,
 * and are handed to whoever listens (the in-process dispatcher).
 */
export class InProcessEventLog implements EventPublisher {
  private readonly seen = new Set<string>();
  private readonly listeners: ((event: StoredEvent) => void)[] = [];
  private readonly backlog: StoredEvent[] = [];

  async publish(subject: string, eventId: string, payload: unknown): Promise<void> {
    if (this.seen.has(eventId)) return;
    this.seen.add(eventId);
    const event = { subject, eventId, payload: structuredClone(payload) };
    if (this.listeners.length === 0) this.backlog.push(event);
    for (const listener of this.listeners) listener(event);
  }

  /** Receives every event published from now on, after any that were waiting for a listener. */
  listen(listener: (event: StoredEvent) => void): void {
    this.listeners.push(listener);
    for (const event of this.backlog.splice(0)) listener(event);
  }
}
