import type { LeaseUpkeep, LeaseUpkeepPlan } from './lease-upkeep';
import type { ShardLeaseStore } from './shard-lease-store';

interface KeptLease {
  token: number;
  /** When the last successful acquire/renew was *sent*. */
  renewedAt: number;
  lost: boolean;
}

/**
 * Lease upkeep on the main thread: a timer renews every held lease in one `renewAll` call. For
 * stores that live in this process's memory (the all-in-one twin, tests), which no other thread
 * can reach. A busy or starved main thread delays it, and the keeper's guard then drops the
 * shards, as it must; Redis leases are kept by ThreadedLeaseUpkeep instead.
 */
export class InThreadLeaseUpkeep implements LeaseUpkeep {
  private readonly kept = new Map<number, KeptLease>();
  private plan: LeaseUpkeepPlan | null = null;
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly leases: ShardLeaseStore) {}

  async start(plan: LeaseUpkeepPlan): Promise<void> {
    this.plan = plan;
    this.timer = setInterval(() => void this.renewHeld(), plan.renewEveryMs);
  }

  hold(shard: number, token: number, acquireSentAt: number): void {
    this.kept.set(shard, { token, renewedAt: acquireSentAt, lost: false });
  }

  letGo(shard: number): void {
    this.kept.delete(shard);
  }

  renewedAt(shard: number, token: number): number | null {
    const lease = this.kept.get(shard);
    if (!lease || lease.token !== token || lease.lost) return null;
    return lease.renewedAt;
  }

  alive(): void {
    // Nothing to stamp: this upkeep runs on the main thread, so it is exactly as alive as it is.
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.renewing;
  }

  /** Renews every held lease in one round trip; a lease found lost is marked for the keeper's guard. */
  private renewHeld(): Promise<void> {
    const plan = this.plan;
    if (this.renewing || this.stopped || !plan) return this.renewing ?? Promise.resolve();
    const leases = [...this.kept]
      .filter(([, lease]) => !lease.lost)
      .map(([shard, { token }]) => ({ shard, token }));
    if (leases.length === 0) return Promise.resolve();
    const sentAt = Date.now();
    this.renewing = this.leases
      .renewAll(plan.memberId, leases, plan.leaseTtlMs)
      .then((renewed) => {
        const still = new Set(renewed);
        for (const { shard, token } of leases) {
          const lease = this.kept.get(shard);
          if (lease?.token !== token) continue; // Let go or re-acquired meanwhile.
          if (still.has(shard)) lease.renewedAt = Math.max(lease.renewedAt, sentAt);
          else lease.lost = true;
        }
      })
      .catch((error: unknown) => plan.logger.warn({ err: error }, 'shard lease renewal failed; retrying'))
      .finally(() => {
        this.renewing = null;
      });
    return this.renewing;
  }
}
