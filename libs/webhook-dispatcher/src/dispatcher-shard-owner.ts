import type { ShardOwner } from '@jumbe/coordination';
import { shardOf } from '@jumbe/domain';
import type { DeliverableEvent, EventConsumption, EventSource } from '@jumbe/messaging';
import type { Logger } from 'pino';
import type { EventDispatcher } from './event-dispatcher';
import { isStreamDeliverable } from './stream-event-check';

/**
 * What owning a shard means for a dispatcher: consume that shard's events from the stream.
 *
 * When the stream's connection comes back after a break, every owned shard is consumed afresh
 * (as a drop and an adoption): an event JetStream handed out over the broken connection never
 * arrived, and JetStream would offer it again only after its acknowledgement wait (120 s), behind
 * the session's newer events (the fault schedule's seed 50: one group message 73 s after the 37
 * that followed it). A fresh consumer offers everything not acknowledged at once and in order;
 * the events still queued here are dropped from the queues first (none was POSTed).
 */
export class DispatcherShardOwner implements ShardOwner {
  private readonly consumptions = new Map<number, EventConsumption>();
  /** Adoptions in flight: the keeper adopts in the background, so a drop may arrive meanwhile. */
  private readonly adopting = new Map<number, Promise<void>>();
  /** The shards the keeper gave this dispatcher (adopted and not dropped since). */
  private readonly owned = new Set<number>();
  /** Consuming afresh after a break, one round at a time. */
  private resuming: Promise<void> = Promise.resolve();

  constructor(
    private readonly source: EventSource,
    private readonly dispatcher: EventDispatcher,
    private readonly logger: Logger,
  ) {
    source.resumed?.(() => {
      this.resuming = this.resuming.then(() => this.consumeAfresh());
    });
  }

  async adopt(shard: number): Promise<void> {
    this.owned.add(shard);
    await this.startConsuming(shard);
  }

  async drop(shard: number): Promise<void> {
    this.owned.delete(shard);
    await this.stopConsuming(shard);
  }

  /**
   * Every owned shard's consumption stopped and started again (see the class's comment), all at
   * once: a shard waits for its POST in hand (a slow receiver's), not for the other shards'.
   */
  private async consumeAfresh(): Promise<void> {
    const shards = [...this.owned];
    this.logger.info(
      { shards: shards.length },
      'event stream connection back: consuming owned shards afresh',
    );
    await Promise.all(shards.map((shard) => this.consumeShardAfresh(shard)));
  }

  private async consumeShardAfresh(shard: number): Promise<void> {
    try {
      await this.stopConsuming(shard);
      // Dropped by the keeper meanwhile (its next owner consumes it), or adopted again by it.
      if (this.owned.has(shard) && !this.consumptions.has(shard) && !this.adopting.has(shard))
        await this.startConsuming(shard);
    } catch (error) {
      this.logger.error({ err: error, shard }, 'could not consume a shard afresh');
    }
  }

  private async startConsuming(shard: number): Promise<void> {
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

  private async stopConsuming(shard: number): Promise<void> {
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
