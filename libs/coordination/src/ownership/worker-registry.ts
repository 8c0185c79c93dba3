/**
 * The workers that are alive right now, as every worker sees them: the input of `assignShards`.
 * A worker heartbeats well within its `ttlMs`; one that stops (crash, partition) drops out of
 * `liveWorkers` once its last heartbeat is `ttlMs` old, and one that shuts down cleanly leaves at
 * once so that its shards are reassigned without waiting for the TTL.
 */
export interface WorkerRegistry {
  /** Marks `workerId` live until `ttlMs` from now (registering it if it was not). */
  heartbeat(workerId: string, ttlMs: number): Promise<void>;

  /** Removes `workerId` now; a worker that is not registered is ignored. */
  leave(workerId: string): Promise<void>;

  /** Ids of the live workers, sorted; entries whose TTL has run out are left out and removed. */
  liveWorkers(): Promise<string[]>;
}
