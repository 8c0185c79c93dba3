import type { ShardLease, ShardOwner } from '@jumbe/coordination';
import { shardSubject } from '@jumbe/domain';
import type { BusSubscription, MessageBus } from '@jumbe/messaging';
import type { SessionCommandHandler } from './session-command-handler';
import type { SessionHost } from './session-host';

/** Should two workers ever serve one shard for a moment, a queue group still runs a command once. */
const SHARD_QUEUE = 'session-workers';

/**
 * What owning a shard means for a session worker: answer the shard's command subject, and keep
 * its sessions connected here. The subject is served as soon as the shard is held, while its
 * sessions are still being restored: a command for a restored session is answered at once, one
 * for a session still restoring waits for it (SessionHost).
 */
export class WorkerShardOwner implements ShardOwner {
  private readonly subscriptions = new Map<number, BusSubscription>();
  /** Per shard, the last adopt or drop set-up: they run in order, never interleaved. */
  private readonly turns = new Map<number, Promise<unknown>>();

  constructor(
    private readonly bus: MessageBus,
    private readonly host: SessionHost,
    private readonly handler: SessionCommandHandler,
  ) {}

  async adopt(shard: number, token: number, lease?: ShardLease): Promise<void> {
    const { restored } = await this.inTurn(shard, async () => {
      // Started first, so commands arriving on the new subscription find the shard restoring.
      const restoring = this.host.adoptShard(shard, token, lease);
      restoring.catch(() => undefined); // Awaited below; a failure here must not go unhandled.
      try {
        const subscription = await this.bus.serve(
          shardSubject(shard),
          (payload, message) => this.handler.handle(shard, payload, message),
          { queue: SHARD_QUEUE },
        );
        this.subscriptions.set(shard, subscription);
      } catch (error) {
        await this.host.dropShard(shard);
        throw error;
      }
      return { restored: restoring };
    });
    await restored;
  }

  /**
   * The lease is gone: nothing of the shard may reach the network from now on. Its sessions stop
   * reconnecting at once, before `drop` waits for the commands in flight (up to a command's
   * timeout): a reconnect meanwhile would kick the next owner's socket off WhatsApp (issue 28).
   */
  lost(shard: number): void {
    this.host.forsakeShard(shard);
  }

  /**
   * Gives the shard up. A planned drop (rebalancing, shutdown) lets the commands in flight finish
   * first (a send under way is answered): the lease is still ours until the keeper releases it
   * after this, so no other worker can be kicked meanwhile. A lost lease was forsaken already.
   */
  async drop(shard: number): Promise<void> {
    await this.inTurn(shard, async () => {
      const subscription = this.subscriptions.get(shard);
      this.subscriptions.delete(shard);
      await subscription?.unsubscribe().catch(() => undefined);
      await this.host.dropShard(shard);
    });
  }

  private inTurn<T>(shard: number, step: () => Promise<T>): Promise<T> {
    const previous = this.turns.get(shard) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(step);
    this.turns.set(shard, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.turns.get(shard) === next) this.turns.delete(shard);
      });
    return next;
  }
}
