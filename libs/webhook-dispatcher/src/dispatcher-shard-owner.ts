import type { ShardOwner } from '@jumbe/coordination';
import { shardOf } from '@jumbe/domain';
import type { EventConsumption, EventSource } from '@jumbe/messaging';
import type { EventDispatcher } from './event-dispatcher';

/** What owning a shard means for a dispatcher: consume that shard's events from the stream. */
export class DispatcherShardOwner implements ShardOwner {
  private readonly consumptions = new Map<number, EventConsumption>();

  constructor(
    private readonly source: EventSource,
    private readonly dispatcher: EventDispatcher,
  ) {}

  async adopt(shard: number): Promise<void> {
    this.consumptions.set(shard, await this.source.consume(shard, (event) => this.dispatcher.accept(event)));
  }

  async drop(shard: number): Promise<void> {
    const consumption = this.consumptions.get(shard);
    this.consumptions.delete(shard);
    await consumption?.stop();
    // Queued events of the shard are its next owner's now (they were never acknowledged here).
    this.dispatcher.forgetWhere((payload) => shardOf(payload.customerId, payload.sessionId) === shard);
  }
}
