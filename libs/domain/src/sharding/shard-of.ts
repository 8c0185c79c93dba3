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
  const digest = createHash('sha256').update(`${accountId}\n${sessionId}`, 'utf8').digest();
  return digest.readUInt32BE(0) % SHARD_COUNT;
}
