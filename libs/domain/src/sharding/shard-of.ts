import { createHash } from 'node:crypto';
import { SHARD_COUNT } from './shard-count';

/**
 * The shard a session belongs to: the first 4 bytes of sha256(`<accountId>\n<sessionId>`) as an
 * unsigned big-endian integer, mod SHARD_COUNT. Every process must compute the same answer forever,
 * so this is a cryptographic hash of a fixed encoding rather than anything runtime-dependent; the
 * newline cannot occur in a session id, so ("a", "b\nc") and ("a\nb", "c") cannot collide by
 * concatenation. 2^32 is a multiple of 64, so the modulo adds no bias.
 */
export function shardOf(accountId: string, sessionId: string): number {
  const name = `${accountId}\n${sessionId}`;
  const known = recent.get(name);
  if (known !== undefined) return known;
  const shard = createHash('sha256').update(name, 'utf8').digest().readUInt32BE(0) % SHARD_COUNT;
  // Every command hashes its session twice (gateway and worker); busy sessions repeat, so a small
  // memo saves the hashing. Cleared whole when full: cheap, and it refills with what is busy.
  if (recent.size >= MEMO_SIZE) recent.clear();
  recent.set(name, shard);
  return shard;
}

const MEMO_SIZE = 10_000;
const recent = new Map<string, number>();
