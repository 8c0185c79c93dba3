/**
 * The NATS subject a shard's current owner serves: commands for a session go to the subject of
 * `shardOf(accountId, sessionId)`, and only the worker holding that shard's lease subscribes.
 */
export function shardSubject(shard: number): string {
  if (!(Number.isSafeInteger(shard) && shard >= 0)) {
    throw new RangeError(`shard must be a non-negative integer, got ${shard}`);
  }
  return `jumbe.v1.shard.${shard}`;
}
