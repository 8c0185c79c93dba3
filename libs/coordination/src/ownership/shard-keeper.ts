import { shardCount, shardsFor } from '@jumbe/domain';
import { InThreadLeaseUpkeep } from './in-thread-lease-upkeep';
import type { LeaseUpkeep } from './lease-upkeep';
import type { ShardLeaseStore } from './shard-lease-store';
import type { WorkerRegistry } from './worker-registry';

/** What a keeper reports through; pino's Logger fits. */
export interface ShardKeeperLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  debug(details: object, message: string): void;
}

/**
 * One grant of a shard's lease, as its owner may consult it at any moment: a stalled event loop
 * runs its due timers before the keeper's guard, so work that must never outlive the lease (a
 * reconnect that would kick the next owner off the network) asks this first, not a flag.
 */
export interface ShardLease {
  /**
   * False once the lease was found lost or may have expired by now, judged by when it was last
   * renewed (with the keeper's safety margin), whether or not the keeper has acted on it yet.
   */
  valid(): boolean;
}

/** Whoever does the work of the shards a keeper holds (session workers, webhook dispatchers). */
export interface ShardOwner {
  /** Starts serving a shard just acquired, writing with its fencing token; `lease` tells if it still holds. */
  adopt(shard: number, token: number, lease?: ShardLease): Promise<void>;
  /** Stops serving a shard (given up or lost); its state stays for the next owner. */
  drop(shard: number): Promise<void>;
  /**
   * Told, just before `drop`, that the shard goes because its lease was lost or not renewed in
   * time rather than given up on purpose (what operators count: `jumbe_shard_lease_losses_total`).
   * Synchronous: whatever must stop at once (a reconnect, a timer) stops here, not in `drop`,
   * which may wait for work in flight.
   */
  lost?(shard: number): void;
}

export interface ShardKeeperOptions {
  /** A lease not renewed for this long lets another worker take the shard (failover time). */
  leaseTtlMs: number;
  /** A worker not heard from for this long is left out of the shard assignment. */
  heartbeatTtlMs: number;
  /** How often the keeper heartbeats and rebalances; held leases are renewed at least this often. */
  tickMs: number;
  /** The shards to spread; the deployment's count (`shardCount()`) unless given. */
  shardCount?: number;
}

export const DEFAULT_SHARD_KEEPER_OPTIONS: ShardKeeperOptions = {
  leaseTtlMs: 6_000,
  heartbeatTtlMs: 4_000,
  tickMs: 1_000,
};

/**
 * A shard whose last successful renewal was sent longer ago than `leaseTtlMs` minus this margin
 * is given up locally, whatever Redis says: by the time its lease can expire there (and another
 * member take it), this process has already stopped serving it.
 */
const LEASE_SAFETY_MARGIN_MS = 1_500;
/** How often the local lease-age check runs, independently of (possibly stuck) ticks. */
const LEASE_GUARD_INTERVAL_MS = 250;

interface HeldShard {
  token: number;
}

/**
 * Keeps this process's share of the shards: heartbeats into the registry, computes the even
 * assignment over the live members, acquires the shards it should own (a lease with a fencing
 * token), has its owner serve them while it holds them, and gives up the ones it should not.
 * A shard is never served past its lease: a local guard drops it before the lease can expire.
 *
 * Three loops that never wait on each other: lease upkeep (every held lease renewed in one round
 * trip, by a LeaseUpkeep: for Redis on a thread of its own), the tick (heartbeat, rebalance,
 * acquire), and the owner's adoption of each new shard, which runs in the background. However long
 * restoring a shard's sessions takes, and however late a CPU-starved main thread is scheduled, every
 * lease, including that shard's, keeps being renewed; the guard reads when each was last renewed.
 */
export class ShardKeeper {
  private readonly held = new Map<number, HeldShard>();
  private readonly adoptions = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private guard: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = false;
  private lastReported = -1;
  /** The last assignment, by the member set it was computed for: recomputed only when that changes. */
  private assignment: { members: string; wanted: ReadonlySet<number> } | null = null;

  constructor(
    readonly workerId: string,
    private readonly leases: ShardLeaseStore,
    private readonly registry: WorkerRegistry,
    private readonly owner: ShardOwner,
    private readonly logger: ShardKeeperLogger,
    private readonly options: ShardKeeperOptions = DEFAULT_SHARD_KEEPER_OPTIONS,
    /** Renews the held leases; bound where the keeper is composed (a thread of its own for Redis). */
    private readonly upkeep: LeaseUpkeep = new InThreadLeaseUpkeep(leases),
  ) {}

  async start(): Promise<void> {
    // Upkeep first: the first tick may acquire shards, and they must be renewed from then on.
    this.upkeep.alive(Date.now());
    await this.upkeep.start({
      memberId: this.workerId,
      leaseTtlMs: this.options.leaseTtlMs,
      renewEveryMs: Math.max(10, Math.round(Math.min(this.options.tickMs, this.options.leaseTtlMs / 4))),
      heartbeatTtlMs: this.options.heartbeatTtlMs,
      shardCount: this.options.shardCount ?? shardCount(),
      logger: this.logger,
    });
    this.guard = setInterval(() => this.dropStale(), LEASE_GUARD_INTERVAL_MS);
    await this.tick();
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick());
    }, this.options.tickMs);
  }

  /** Hands every shard over cleanly: leave the registry first so others take them at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.guard) clearInterval(this.guard);
    await this.ticking;
    // Before leaving: an upkeep that heartbeats must not put this member back afterwards.
    await this.upkeep
      .stop()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'stopping lease upkeep failed'));
    await this.registry.leave(this.workerId).catch(() => undefined);
    await Promise.all([...this.held.keys()].map((shard) => this.release(shard)));
    await Promise.allSettled([...this.adoptions]);
  }

  heldShards(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.dropStale();
    try {
      await this.registry.heartbeat(this.workerId, this.options.heartbeatTtlMs);
      const live = await this.registry.liveWorkers();
      const wanted = this.wantedAmong(live.includes(this.workerId) ? live : [...live, this.workerId]);
      const unwanted = [...this.held.keys()].filter((shard) => !wanted.has(shard));
      // Give up first (in parallel: each may wait on the bus), so the new owners can start.
      await Promise.all(unwanted.map((shard) => this.release(shard)));
      const missing = [...wanted].filter((shard) => !this.held.has(shard));
      await Promise.all(missing.map((shard) => this.acquire(shard)));
      this.reportChange();
    } catch (error) {
      this.logger.warn({ err: error }, 'shard upkeep failed; retrying');
    }
  }

  /** This member's shards among `members` (sorted, as the registry lists them). */
  private wantedAmong(members: string[]): ReadonlySet<number> {
    const key = members.join('\n');
    if (this.assignment?.members !== key) {
      const count = this.options.shardCount ?? shardCount();
      this.assignment = { members: key, wanted: new Set(shardsFor(this.workerId, members, count)) };
    }
    return this.assignment.wanted;
  }

  /** Logs the shard count whenever it changes (operators and the end-to-end tests read it). */
  private reportChange(): void {
    if (this.held.size === this.lastReported) return;
    this.lastReported = this.held.size;
    this.logger.info({ shardsHeld: this.held.size }, 'shard ownership changed');
  }

  private async acquire(shard: number): Promise<void> {
    if (this.stopped || this.held.has(shard)) return;
    const sentAt = Date.now();
    const token = await this.leases.acquire(shard, this.workerId, this.options.leaseTtlMs);
    // Null: the previous owner still holds it; it lets go on its next tick or its lease expires.
    if (token === null || this.stopped) {
      if (token !== null) await this.leases.release(shard, this.workerId, token).catch(() => undefined);
      return;
    }
    this.held.set(shard, { token });
    this.upkeep.hold(shard, token, sentAt);
    // In the background: the tick (heartbeat, rebalance) and lease upkeep go on meanwhile.
    const adoption = this.adopt(shard, token);
    this.adoptions.add(adoption);
    void adoption.finally(() => this.adoptions.delete(adoption));
  }

  /**
   * A take-over failed since the last one that succeeded (an outage of what adopting a shard
   * needs): further failures are logged at debug, not once per shard and tick at warn.
   */
  private takeOversFailing = false;

  private async adopt(shard: number, token: number): Promise<void> {
    try {
      await this.owner.adopt(shard, token, { valid: () => this.leaseValid(shard, token) });
      this.logger.debug({ shard, token }, 'shard acquired');
      this.takeOversFailing = false;
    } catch (error) {
      if (this.held.get(shard)?.token !== token) return; // Given up meanwhile; nothing to undo.
      // Not served: let it go entirely, so the next tick (here or elsewhere) tries again. Warned
      // once until a take-over succeeds: an outage fails every shard's, every tick.
      const level = this.takeOversFailing ? 'debug' : 'warn';
      this.takeOversFailing = true;
      this.logger[level]({ err: error, shard }, 'could not take the shard over; will retry');
      await this.release(shard);
    }
  }

  private async release(shard: number): Promise<void> {
    const held = this.held.get(shard);
    if (!held) return;
    await this.forget(shard);
    await this.leases.release(shard, this.workerId, held.token).catch(() => undefined);
  }

  /** Stops serving a shard (its stored state stays for the next owner). */
  private async forget(shard: number): Promise<void> {
    if (!this.held.delete(shard)) return;
    this.upkeep.letGo(shard);
    await this.owner
      .drop(shard)
      .catch((error: unknown) => this.logger.warn({ err: error, shard }, 'dropping a shard failed'));
  }

  /** True while `token`'s grant of `shard` is held here, neither found lost nor stale by the clock. */
  private leaseValid(shard: number, token: number): boolean {
    if (this.held.get(shard)?.token !== token) return false;
    const renewedAt = this.upkeep.renewedAt(shard, token);
    return renewedAt !== null && renewedAt > this.staleBefore(Date.now());
  }

  /** A lease last renewed at or before this time may be about to expire unrenewed. */
  private staleBefore(now: number): number {
    // Short leases (tests) get a proportionate margin, so a fresh lease is never stale at once.
    const margin = Math.min(LEASE_SAFETY_MARGIN_MS, this.options.leaseTtlMs / 4);
    return now - (this.options.leaseTtlMs - margin);
  }

  /**
   * Gives up, locally, every shard whose lease was found lost or may be about to expire unrenewed.
   * Also the main thread's liveness stamp: an upkeep on its own thread renews only while it is fresh.
   */
  private dropStale(): void {
    const now = Date.now();
    this.upkeep.alive(now);
    const deadline = this.staleBefore(now);
    for (const [shard, held] of this.held) {
      const renewedAt = this.upkeep.renewedAt(shard, held.token);
      if (renewedAt === null) {
        this.logger.warn({ shard }, 'shard lease lost; stopping its work here');
        this.owner.lost?.(shard);
        void this.forget(shard);
      } else if (renewedAt <= deadline) {
        this.logger.warn({ shard }, 'shard lease could not be renewed in time; stopping its work here');
        this.owner.lost?.(shard);
        // Released too (a no-op if it is already someone else's), so it is free at once rather
        // than after its expiry: this is what made a second failover take 16 s instead of 6.
        void this.release(shard);
      }
    }
  }
}
