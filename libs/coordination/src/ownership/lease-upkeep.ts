/** What lease upkeep reports through; a ShardKeeperLogger (pino's Logger) fits. */
export interface LeaseUpkeepLogger {
  warn(details: object, message: string): void;
  error?(details: object, message: string): void;
}

/** What a keeper asks its upkeep to do, given once when it starts. */
export interface LeaseUpkeepPlan {
  /** The member the leases (and, where the upkeep keeps it, the registry entry) belong to. */
  memberId: string;
  /** Each renewal extends a lease to this long from when it is sent. */
  leaseTtlMs: number;
  /** How often every held lease is renewed (one round trip for all). */
  renewEveryMs: number;
  /** The member's registry heartbeat TTL, for an upkeep that also heartbeats. */
  heartbeatTtlMs: number;
  /** Shards are numbered 0 to shardCount − 1. */
  shardCount: number;
  logger: LeaseUpkeepLogger;
}

/**
 * Keeps a member's held leases alive: renews them all, in one round trip, on a schedule of its own
 * that no work of the member can hold up. The keeper decides everything else (what to acquire,
 * release, when a shard is too stale to serve); the upkeep only renews and reports when each
 * lease was last renewed and which were found lost.
 *
 * Two kinds: on the main thread (InThreadLeaseUpkeep, for the in-memory store of the all-in-one
 * process and tests) and on a worker thread of its own (ThreadedLeaseUpkeep, for Redis), which goes
 * on renewing while a CPU-starved main thread is not scheduled, for as long as the main thread's
 * liveness stamp (`alive`) is recent enough.
 */
export interface LeaseUpkeep {
  start(plan: LeaseUpkeepPlan): Promise<void>;

  /** Renews the shard's lease under `token` from now on; `acquireSentAt` is when its acquire was sent. */
  hold(shard: number, token: number, acquireSentAt: number): void;

  /** Stops renewing the shard's lease (released, lost or given up). */
  letGo(shard: number): void;

  /**
   * When the last successful acquire or renewal of the shard's lease under `token` was *sent* (the
   * store counts the TTL from about then); null when a renewal found the lease no longer held.
   */
  renewedAt(shard: number, token: number): number | null;

  /** The main thread is alive at `now` (stamped on every guard pass). */
  alive(now: number): void;

  /** Stops renewing for good; resolves once no renewal of this upkeep can still reach the store. */
  stop(): Promise<void>;
}
