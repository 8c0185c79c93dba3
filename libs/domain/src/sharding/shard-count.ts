/**
 * How many virtual shards sessions are spread over (ARCHITECTURE "Ownership and failover").
 * Fixed for the life of a deployment: changing it remaps nearly every session to another shard,
 * and so to another owner. 64 keeps shards small enough to spread evenly over a handful of
 * workers and few enough that one worker can hold a lease on each of them cheaply.
 */
export const SHARD_COUNT = 64;
