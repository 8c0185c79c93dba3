import { AcknowledgementsSince } from './acknowledgements-since';
import type { EventPublisher, OutgoingEvent } from './event-publisher';
import type { DeliverableEvent, EventConsumption, EventSource } from './event-source';
import { MicroBatcher } from './micro-batcher';

/** What appending one event did, as a store that appends in batches tells it. */
export interface AppendOutcome {
  /** It was new and is stored now (false: a copy with its id is stored already). */
  stored: boolean;
  /** Checked in the statement that stored it: no delivery attempt is recorded under its id. */
  unrecorded: boolean;
}

/** Where the all-in-one event log keeps events until delivered (PostgreSQL: see libs/persistence). */
export interface EventLogStore {
  /** Stores the event unless its id is already stored; true when it was new. */
  append(event: OutgoingEvent): Promise<boolean>;
  /** `append` for many in one write, in the order given (a store that can batch offers it). */
  appendAll?(events: OutgoingEvent[]): Promise<AppendOutcome[]>;
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
  private readonly appends: MicroBatcher<OutgoingEvent, AppendOutcome> | null;
  /** Ids acknowledged while an append was in flight: its "nothing recorded" is stale for them. */
  private readonly acknowledged = new AcknowledgementsSince();

  constructor(private readonly store: EventLogStore) {
    const appendAll = store.appendAll?.bind(store);
    this.appends = appendAll
      ? new MicroBatcher((events) => this.appendTracked(events, appendAll), { concurrency: 4 })
      : null;
    this.removals = new MicroBatcher<string, void>(
      async (eventIds) => {
        await this.store.removeAll(eventIds);
        return eventIds.map(() => undefined);
      },
      { lingerMs: ACK_LINGER_MS },
    );
  }

  async publish(event: OutgoingEvent): Promise<void> {
    const outcome: AppendOutcome = this.appends
      ? await this.appends.submit(event)
      : { stored: await this.store.append(event), unrecorded: false };
    if (!outcome.stored) return;
    this.listeners.get(event.shard)?.(
      this.deliverable(event.eventId, event.subject, event.payload, outcome.unrecorded),
    );
  }

  /** One batch of appends; "nothing recorded" is withdrawn for an id acknowledged meanwhile. */
  private async appendTracked(
    events: OutgoingEvent[],
    appendAll: (events: OutgoingEvent[]) => Promise<AppendOutcome[]>,
  ): Promise<AppendOutcome[]> {
    const mark = this.acknowledged.mark();
    try {
      const outcomes = await appendAll(events);
      return events.map((event, i) => {
        const outcome = outcomes[i] ?? { stored: false, unrecorded: false };
        return this.acknowledged.acknowledgedSince(mark, event.eventId)
          ? { ...outcome, unrecorded: false }
          : outcome;
      });
    } finally {
      this.acknowledged.release(mark);
    }
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

  private deliverable(
    eventId: string,
    subject: string,
    payload: unknown,
    unrecorded = false,
  ): DeliverableEvent {
    return {
      eventId,
      subject,
      payload,
      ...(unrecorded ? { unrecorded: true as const } : {}),
      ack: () => {
        this.acknowledged.note(eventId);
        return this.removals.submit(eventId);
      },
      working: async () => undefined,
    };
  }
}
