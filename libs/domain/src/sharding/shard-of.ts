import { createHash } from 'node:crypto';
import { shardCount as deploymentShardCount } from './shard-count';

/**
 * The shard a session belongs to: the first 4 bytes of sha256(`<accountId>\n<sessionId>`) as an
 * unsigned big-endian integer, mod the deployment's shard count. Every process must compute the
 * same answer forever, so this is a cryptographic hash of a fixed encoding rather than anything
 * runtime-dependent, and the count is fixed when the deployment is created; the newline cannot
 * occur in a session id, so ("a", "b\nc") and ("a\nb", "c") cannot collide by concatenation. For
 * a power-of-two count (64, 1,024) the modulo adds no bias; for any other, under 2^-18.
 */
export function shardOf(accountId: string, sessionId: string, shardCount = deploymentShardCount()): number {
  const name = `${accountId}\n${sessionId}`;
  if (shardCount !== memoShardCount) {
    recent.clear();
    memoShardCount = shardCount;
  }
  const known = recent.get(name);
  if (known !== undefined) return known;
  const shard = createHash('sha256').update(name, 'utf8').digest().readUInt32BE(0) % shardCount;
  // Every command hashes its session twice (gateway and worker); busy sessions repeat, so a small
  // memo saves the hashing. Cleared whole when full: cheap, and it refills with what is busy.
  if (recent.size >= MEMO_SIZE) recent.clear();
  recent.set(name, shard);
  return shard;
}

const MEMO_SIZE = 10_000;
const recent = new Map<string, number>();
let memoShardCount = 0;
