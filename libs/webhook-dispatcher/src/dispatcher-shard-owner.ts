import type { ShardOwner } from '@jumbe/coordination';
import { shardOf } from '@jumbe/domain';
import type { DeliverableEvent, EventConsumption, EventSource } from '@jumbe/messaging';
import type { Logger } from 'pino';
import type { EventDispatcher } from './event-dispatcher';
import { isStreamDeliverable } from './stream-event-check';

/** What owning a shard means for a dispatcher: consume that shard's events from the stream. */
export class DispatcherShardOwner implements ShardOwner {
  private readonly consumptions = new Map<number, EventConsumption>();
  /** Adoptions in flight: the keeper adopts in the background, so a drop may arrive meanwhile. */
  private readonly adopting = new Map<number, Promise<void>>();

  constructor(
    private readonly source: EventSource,
    private readonly dispatcher: EventDispatcher,
    private readonly logger: Logger,
  ) {}

  async adopt(shard: number): Promise<void> {
    const adopting = this.source
      .consume(shard, (event) => this.accept(event))
      .then((consumption) => void this.consumptions.set(shard, consumption));
    this.adopting.set(shard, adopting);
    try {
      await adopting;
    } finally {
      if (this.adopting.get(shard) === adopting) this.adopting.delete(shard);
    }
  }

  /**
   * An event no schema knows (a producer's bug, or a newer producer than this dispatcher) is set
   * aside at once, never retried: one bad event must not hold up its session's queue.
   */
  private accept(event: DeliverableEvent): void {
    if (isStreamDeliverable(event)) return this.dispatcher.accept(event);
    this.logger.error(
      { eventId: event.eventId, subject: event.subject },
      'stream event of unknown shape dropped',
    );
    void event.ack().catch(() => undefined);
  }

  async drop(shard: number): Promise<void> {
    // A consumption still starting is stopped once started, never left running unowned.
    await this.adopting.get(shard)?.catch(() => undefined);
    const consumption = this.consumptions.get(shard);
    this.consumptions.delete(shard);
    await consumption?.stop();
    // Queued events of the shard are its next owner's now (they were never acknowledged here);
    // the one in hand is finished first, while this dispatcher still holds the shard's lease.
    const inShard = (payload: { customerId: string; sessionId: string }) =>
      shardOf(payload.customerId, payload.sessionId) === shard;
    this.dispatcher.forgetWhere(inShard);
    await this.dispatcher.finishInHand(inShard);
  }
}
