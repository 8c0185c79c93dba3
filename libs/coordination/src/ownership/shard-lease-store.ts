/** Who holds a shard's lease, and the fencing token it was granted with. */
export interface ShardLeaseHolder {
  workerId: string;
  token: number;
}

/** A lease this worker believes it holds. */
export interface HeldLease {
  shard: number;
  token: number;
}

/**
 * Time-limited, exclusive ownership of a shard (ARCHITECTURE "Ownership and failover"). A worker
 * serves a shard only while it holds the lease, renewing it well before `ttlMs` runs out; a worker
 * that dies simply stops renewing and the lease expires.
 *
 * Expiry alone cannot prevent two writers: a paused worker (GC, stalled VM) may still believe it
 * holds a lease that has already passed to another worker. Hence the fencing token: every grant of
 * a shard to a new holder gets a token greater than any token ever granted for that shard, and
 * durable writes carry it, so storage can refuse a write whose token is lower than one it has seen.
 *
 * Tokens start at 1 and are per shard; they are never reused, also not after a release.
 */
export interface ShardLeaseStore {
  /**
   * Takes the shard if it is free (or its lease has expired) and returns a new token; if
   * `workerId` already holds it, extends the lease to `ttlMs` from now and returns the token it
   * already has. Null when another worker holds it.
   */
  acquire(shard: number, workerId: string, ttlMs: number): Promise<number | null>;

  /**
   * Extends the lease to `ttlMs` from now, only if `workerId` still holds it under `token`. False
   * means the lease is lost (expired, or taken over): stop serving the shard at once.
   */
  renew(shard: number, workerId: string, token: number, ttlMs: number): Promise<boolean>;

  /**
   * Renews every lease in `held` in one round trip (each as `renew` would) and returns the shards
   * that are still held; the others are lost. One call for all, so a worker holding many shards
   * keeps them all alive however busy it is.
   */
  renewAll(workerId: string, held: readonly HeldLease[], ttlMs: number): Promise<number[]>;

  /** Frees the shard for the next worker, only if `workerId` holds it under `token`; otherwise does nothing. */
  release(shard: number, workerId: string, token: number): Promise<void>;

  /** The current holder, or null when the shard is free. */
  holder(shard: number): Promise<ShardLeaseHolder | null>;
}
