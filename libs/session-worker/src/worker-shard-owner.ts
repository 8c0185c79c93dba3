import type { ShardOwner } from '@jumbe/coordination';
import { shardSubject } from '@jumbe/domain';
import type { BusSubscription, MessageBus } from '@jumbe/messaging';
import type { SessionCommandHandler } from './session-command-handler';
import type { SessionHost } from './session-host';

/** Should two workers ever serve one shard for a moment, a queue group still runs a command once. */
const SHARD_QUEUE = 'session-workers';

/**
 * What owning a shard means for a session worker: answer the shard's command subject, and keep
 * its sessions connected here. Sessions are restored before the subject is served, so the first
 * command finds them.
 */
export class WorkerShardOwner implements ShardOwner {
  private readonly subscriptions = new Map<number, BusSubscription>();

  constructor(
    private readonly bus: MessageBus,
    private readonly host: SessionHost,
    private readonly handler: SessionCommandHandler,
  ) {}

  async adopt(shard: number, token: number): Promise<void> {
    await this.host.adoptShard(shard, token);
    const subscription = await this.bus.serve(
      shardSubject(shard),
      (payload) => this.handler.handle(shard, payload),
      {
        queue: SHARD_QUEUE,
      },
    );
    this.subscriptions.set(shard, subscription);
  }

  async drop(shard: number): Promise<void> {
    const subscription = this.subscriptions.get(shard);
    this.subscriptions.delete(shard);
    await subscription?.unsubscribe().catch(() => undefined);
    await this.host.dropShard(shard);
  }
}
