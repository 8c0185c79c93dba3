import { createHash } from 'node:crypto';
import { SHARD_COUNT } from './shard-count';

/**
 * Which shards each live worker should own. Every worker computes this on its own from the same
 * registry snapshot, so it must be a pure function of the SET of worker ids: the result does not
 * depend on their order or on duplicates, and each worker's shards are listed in ascending order.
 *
 * The scheme is rendezvous (highest-random-weight) hashing with bounded loads:
 * - every (worker, shard) pair gets a pseudo-random weight, hash(worker, shard), that does not
 *   depend on which other workers are live;
 * - pairs are taken heaviest first, so each shard goes to its heaviest-weighted worker that still
 *   has room. Room is floor(S/n) shards each, plus one extra for the first S mod n workers to
 *   fill up, so sizes differ by at most 1 and every shard is placed.
 * Plain rendezvous hashing moves only the shards a joining worker wins (or a leaving worker held),
 * but its loads are uneven; the load bound evens them out at the cost of a few extra moves where a
 * worker's change of room pushes a shard to its next-heaviest worker. Measured for 1–8 workers
 * (see the spec), a join or leave moves on average at most ~1.5x the unavoidable shards (those the
 * newcomer gets or the leaver had), against roughly S·(n-1)/n for a `shard % n` scheme.
 * Cost: S·n hashes and a sort, about 0.5 ms for 7 workers; callers may cache per member set.
 */
export function assignShards(
  liveWorkerIds: readonly string[],
  shardCount: number = SHARD_COUNT,
): Map<string, number[]> {
  if (!(Number.isSafeInteger(shardCount) && shardCount > 0)) {
    throw new RangeError(`shardCount must be a positive integer, got ${shardCount}`);
  }
  // Code-unit order (not localeCompare) so that every process sorts identically.
  const workers = [...new Set(liveWorkerIds)].sort();
  const shardsByWorker = new Map<string, number[]>(workers.map((workerId) => [workerId, []]));
  if (workers.length === 0) return shardsByWorker;

  const baseLoad = Math.floor(shardCount / workers.length);
  let extraSlots = shardCount % workers.length;
  const owned = new Set<number>();
  for (const { workerId, shard } of pairsHeaviestFirst(workers, shardCount)) {
    if (owned.has(shard)) continue;
    const shards = shardsByWorker.get(workerId) ?? [];
    if (shards.length < baseLoad || (shards.length === baseLoad && extraSlots > 0)) {
      if (shards.length === baseLoad) extraSlots -= 1;
      shards.push(shard);
      owned.add(shard);
      if (owned.size === shardCount) break;
    }
  }
  for (const shards of shardsByWorker.values()) shards.sort((a, b) => a - b);
  return shardsByWorker;
}

/** The shards `workerId` should own among `liveWorkerIds`; empty when it is not among them. */
export function shardsFor(
  workerId: string,
  liveWorkerIds: readonly string[],
  shardCount: number = SHARD_COUNT,
): number[] {
  return assignShards(liveWorkerIds, shardCount).get(workerId) ?? [];
}

interface WeightedPair {
  workerId: string;
  shard: number;
  weight: number;
}

/** Every (worker, shard) pair, heaviest first; ties (astronomically rare) broken by id, then shard. */
function pairsHeaviestFirst(workers: readonly string[], shardCount: number): WeightedPair[] {
  const pairs: WeightedPair[] = [];
  for (const workerId of workers) {
    for (let shard = 0; shard < shardCount; shard++) {
      pairs.push({ workerId, shard, weight: rendezvousWeight(workerId, shard) });
    }
  }
  return pairs.sort(
    (a, b) =>
      b.weight - a.weight ||
      (a.workerId < b.workerId ? -1 : a.workerId > b.workerId ? 1 : 0) ||
      a.shard - b.shard,
  );
}

// 48 bits of sha256: an exact integer in a double, and collisions negligible at any fleet size.
function rendezvousWeight(workerId: string, shard: number): number {
  return createHash('sha256').update(`${workerId}\n${shard}`, 'utf8').digest().readUIntBE(0, 6);
}
