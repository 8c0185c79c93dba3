/**
 * How many virtual shards sessions (and their events) are spread over, unless the deployment was
 * created with another count (JUMBE_SHARD_COUNT; ARCHITECTURE "Ownership and failover"). 64 serves
 * up to 64 useful workers, a few tens of thousands of numbers; BENCHMARKS.md sizes larger ones.
 */
export const DEFAULT_SHARD_COUNT = 64;

/**
 * The most shards a deployment may be created with: every worker computes the whole assignment
 * each second and renews one lease per shard it holds, so the fleet's Redis load grows with it.
 */
export const MAX_SHARD_COUNT = 16_384;

let deploymentShardCount = DEFAULT_SHARD_COUNT;

/**
 * The shard count of this process's deployment. It is a deployment-wide constant that is only
 * known once the process has started (configuration, checked against what the deployment was
 * created with), so it is set once, at start-up, rather than threaded through every caller of
 * `shardOf`: a per-call count would let one caller silently disagree with the others.
 */
export function shardCount(): number {
  return deploymentShardCount;
}

/** Sets the deployment's shard count for this process; called once at start-up, before any shard is computed. */
export function useShardCount(count: number): void {
  assertValidShardCount(count);
  deploymentShardCount = count;
}

export function assertValidShardCount(count: number): void {
  if (!(Number.isSafeInteger(count) && count >= 1 && count <= MAX_SHARD_COUNT)) {
    throw new RangeError(`the shard count must be an integer from 1 to ${MAX_SHARD_COUNT}, got ${count}`);
  }
}
