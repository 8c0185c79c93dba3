import {
  accountOfEventSubject,
  type LiveEvent,
  type LiveEventCursor,
  type LiveEventLog,
  type LiveEventPosition,
  LiveEventsLostError,
} from './live-event-log';

/** Where one follower stands. */
interface Reader {
  next: number;
  closed: boolean;
  wake: (() => void) | null;
}

/** Events the all-in-one process keeps for live subscribers, over all accounts. */
export const MEMORY_LIVE_EVENTS_KEPT = 10_000;

/**
 * The all-in-one twin of the JetStream live stream: the last `capacity` events in memory. Its
 * sequence starts at the wall clock's milliseconds when the process starts, so an id a client saw
 * before a restart is older than anything kept now and is answered as a gap, never mistaken for an
 * event of this run (as long as the process stored fewer events than milliseconds went by).
 */
export class MemoryLiveEventLog implements LiveEventLog {
  private readonly kept: LiveEvent[] = [];
  private readonly keptIds = new Set<string>();
  private readonly waiting = new Set<() => void>();
  private nextSeq: number;

  constructor(
    private readonly capacity: number = MEMORY_LIVE_EVENTS_KEPT,
    firstSeq: number = Date.now(),
  ) {
    this.nextSeq = firstSeq;
  }

  async start(): Promise<void> {
    // Appended to by the publisher (LiveEventTee) from the start: nothing to start.
  }

  async stop(): Promise<void> {
    this.wakeAll();
  }

  /** Keeps an event the stream stored; a copy already kept (a publish retried) is skipped. */
  append(event: { eventId: string; subject: string; payload: unknown }): void {
    if (this.keptIds.has(event.eventId)) return;
    this.kept.push({ seq: this.nextSeq++, ...event });
    this.keptIds.add(event.eventId);
    while (this.kept.length > this.capacity) {
      const dropped = this.kept.shift();
      if (dropped) this.keptIds.delete(dropped.eventId);
    }
    this.wakeAll();
  }

  async position(): Promise<LiveEventPosition> {
    return { oldestKept: this.oldestKept(), latest: this.nextSeq - 1 };
  }

  async follow(accountId: string, after: number): Promise<LiveEventCursor> {
    const reader: Reader = { next: Math.max(after + 1, this.oldestKept()), closed: false, wake: null };
    const events = this.read(accountId, reader);
    return {
      close: async () => {
        reader.closed = true;
        reader.wake?.();
      },
      [Symbol.asyncIterator]: () => events,
    };
  }

  private async *read(accountId: string, reader: Reader): AsyncGenerator<LiveEvent> {
    while (!reader.closed) {
      if (reader.next < this.oldestKept()) throw new LiveEventsLostError(reader.next);
      const event = this.kept[reader.next - this.oldestKept()];
      if (event === undefined) {
        await new Promise<void>((resolve) => {
          reader.wake = resolve;
          this.waiting.add(resolve);
        });
        continue;
      }
      reader.next = event.seq + 1;
      if (accountOfEventSubject(event.subject) === accountId) yield event;
    }
  }

  private oldestKept(): number {
    return this.kept[0]?.seq ?? this.nextSeq;
  }

  private wakeAll(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resolve of waiting) resolve();
  }
}
