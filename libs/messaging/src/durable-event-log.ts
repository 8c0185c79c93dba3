import type { EventPublisher, OutgoingEvent } from './event-publisher';
import type { DeliverableEvent, EventConsumption, EventSource } from './event-source';
import { MicroBatcher } from './micro-batcher';

/** Where the all-in-one event log keeps events until delivered (PostgreSQL: see libs/persistence). */
export interface EventLogStore {
  /** Stores the event unless its id is already stored; true when it was new. */
  append(event: OutgoingEvent): Promise<boolean>;
  /** `append` for many in one write, in the order given (a store that can batch offers it). */
  appendAll?(events: OutgoingEvent[]): Promise<boolean[]>;
  /** The shard's stored events, oldest first. */
  pending(shard: number): Promise<{ eventId: string; subject: string; payload: unknown }[]>;
  /** Removes the events (those already gone are skipped). */
  removeAll(eventIds: string[]): Promise<void>;
}

type Listener = (event: DeliverableEvent) => void;

/** How long an acknowledgement waits for others to share its DELETE. */
const ACK_LINGER_MS = 10;

/**
 * The all-in-one twin of the JetStream stream: events are written to a store (so a crash loses
 * none) and handed to the in-process consumer of their shard right away; whatever was stored but
 * not acknowledged before a restart is handed over again when the shard is consumed.
 */
export class DurableEventLog implements EventPublisher, EventSource {
  private readonly listeners = new Map<number, Listener>();
  /**
   * Acknowledgements share one DELETE, gathered for up to ACK_LINGER_MS: nobody waits on it (an
   * event is acknowledged once its delivery is recorded, and one whose DELETE a crash prevents is
   * handed over again and found recorded), and at a steady trickle one DELETE per event would be
   * a round trip, a transaction and a wake-up of the database each.
   */
  private readonly removals: MicroBatcher<string, void>;
  /**
   * Events published together (by different sessions) share one INSERT. A session publishes its
   * next event only once the previous one is stored, so its events land in order.
   */
  private readonly appends: MicroBatcher<OutgoingEvent, boolean> | null;

  constructor(private readonly store: EventLogStore) {
    const appendAll = store.appendAll?.bind(store);
    this.appends = appendAll ? new MicroBatcher(appendAll, { concurrency: 4 }) : null;
    this.removals = new MicroBatcher<string, void>(
      async (eventIds) => {
        await this.store.removeAll(eventIds);
        return eventIds.map(() => undefined);
      },
      { lingerMs: ACK_LINGER_MS },
    );
  }

  async publish(event: OutgoingEvent): Promise<void> {
    const appended = this.appends ? await this.appends.submit(event) : await this.store.append(event);
    if (!appended) return;
    this.listeners.get(event.shard)?.(this.deliverable(event.eventId, event.subject, event.payload));
  }

  async consume(shard: number, handler: Listener): Promise<EventConsumption> {
    // Listen first and skip duplicates, so an event published while the backlog is read is handed
    // over once whichever path sees it first. An id is forgotten when its event is acknowledged:
    // the store then no longer holds it, so it cannot come back.
    const handed = new Set<string>();
    const listener: Listener = (event) => {
      if (handed.has(event.eventId)) return;
      handed.add(event.eventId);
      handler({
        ...event,
        ack: async () => {
          await event.ack();
          handed.delete(event.eventId);
        },
      });
    };
    this.listeners.set(shard, listener);
    for (const event of await this.store.pending(shard)) {
      listener(this.deliverable(event.eventId, event.subject, event.payload));
    }
    return {
      stop: async () => {
        if (this.listeners.get(shard) === listener) this.listeners.delete(shard);
      },
    };
  }

  private deliverable(eventId: string, subject: string, payload: unknown): DeliverableEvent {
    return {
      eventId,
      subject,
      payload,
      ack: () => this.removals.submit(eventId),
      working: async () => undefined,
    };
  }
}
