import { createHash } from 'node:crypto';
import { shardCount as deploymentShardCount } from './shard-count';

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
 * Cost: S·n hashes the first time a worker is seen (kept after), then about S·n comparisons:
 * a few milliseconds for 1,024 shards over 50 workers. Callers may cache per member set.
 */
export function assignShards(
  liveWorkerIds: readonly string[],
  shardCount: number = deploymentShardCount(),
): Map<string, number[]> {
  if (!(Number.isSafeInteger(shardCount) && shardCount > 0)) {
    throw new RangeError(`shardCount must be a positive integer, got ${shardCount}`);
  }
  // Code-unit order (not localeCompare) so that every process sorts identically.
  const workers = [...new Set(liveWorkerIds)].sort();
  // `owned[worker]` is the list `shardsByWorker` holds for `workers[worker]`: the same arrays.
  const owned: number[][] = workers.map(() => []);
  const shardsByWorker = new Map<string, number[]>(
    workers.map((workerId, worker) => [workerId, owned[worker]]),
  );
  if (workers.length === 0) return shardsByWorker;

  const loads = new LoadBound(workers.length, shardCount);
  const pairs = new HeaviestPairs(
    workers.map((workerId) => rendezvousWeights(workerId, shardCount)),
    shardCount,
    (worker) => loads.hasRoom(owned[worker].length),
  );
  // Every shard is placed: the bound's room adds up to exactly `shardCount`.
  for (let placed = 0; placed < shardCount; placed++) {
    const { worker, shard } = pairs.takeHeaviest();
    loads.fill(owned[worker].length);
    owned[worker].push(shard);
  }
  for (const shards of owned) shards.sort((a, b) => a - b);
  return shardsByWorker;
}

/** The shards `workerId` should own among `liveWorkerIds`; empty when it is not among them. */
export function shardsFor(
  workerId: string,
  liveWorkerIds: readonly string[],
  shardCount: number = deploymentShardCount(),
): number[] {
  return assignShards(liveWorkerIds, shardCount).get(workerId) ?? [];
}

/** Room: floor(S/n) shards per worker, plus one more for the first S mod n workers to fill up. */
class LoadBound {
  private readonly baseLoad: number;
  private extraSlots: number;

  constructor(workers: number, shardCount: number) {
    this.baseLoad = Math.floor(shardCount / workers);
    this.extraSlots = shardCount % workers;
  }

  /** Once false for a worker, never true again (room only shrinks): a refused pair stays refused. */
  hasRoom(load: number): boolean {
    return load < this.baseLoad || (load === this.baseLoad && this.extraSlots > 0);
  }

  fill(load: number): void {
    if (load === this.baseLoad) this.extraSlots -= 1;
  }
}

/**
 * The (worker, shard) pairs in the order "heaviest first; ties by worker, then shard", skipping
 * placed shards and workers without room, without listing (and sorting) all S·n of them: each
 * unplaced shard waits in a max-heap with its heaviest worker that had room when last looked at.
 * A worker found full is passed over for good (room only shrinks), so the pair taken is always
 * the one a full sort of every pair would have reached next.
 * Workers and shards are indexes from 0, so every `weights[worker][shard]` and `candidate[shard]`
 * read below is in range by construction.
 */
class HeaviestPairs {
  private readonly heap: number[];
  /** Each shard's current candidate worker. */
  private readonly candidate: Int32Array;

  constructor(
    /** One array per worker, `shardCount` long. */
    private readonly weights: readonly Float64Array[],
    shardCount: number,
    private readonly hasRoom: (worker: number) => boolean,
  ) {
    this.candidate = new Int32Array(shardCount);
    // Stryker disable next-line EqualityOperator: equivalent, `<=` writes once past the typed array's end, which ignores it
    for (let shard = 0; shard < shardCount; shard++) this.candidate[shard] = this.heaviestWithRoom(shard);
    this.heap = Array.from({ length: shardCount }, (_, shard) => shard);
    // Stryker disable next-line ArithmeticOperator: equivalent, starting at `(S >> 1) + 1` only adds leaves, which sift down nowhere
    for (let i = (shardCount >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  /** Removes and returns the heaviest pair whose worker has room. */
  takeHeaviest(): { worker: number; shard: number } {
    // The caller takes exactly one pair per shard, so the heap is never empty here.
    // Stryker disable next-line ConditionalExpression, StringLiteral: equivalent, unreachable (one take per shard), so neither the guard nor its wording is ever seen
    if (this.heap.length === 0) throw new RangeError('every shard is already placed');
    for (;;) {
      const shard = this.heap[0];
      const worker = this.candidate[shard];
      if (this.hasRoom(worker)) {
        // Moves the last entry to the top; when the top was the only entry, the heap is now empty.
        const last = this.heap.pop();
        if (
          last !== undefined &&
          // Stryker disable next-line ConditionalExpression, EqualityOperator: equivalent, `true` or `>= 0` differ only after the last take, and nothing reads the heap then
          this.heap.length > 0
        ) {
          this.heap[0] = last;
          this.siftDown(0);
        }
        return { worker, shard };
      }
      this.candidate[shard] = this.heaviestWithRoom(shard);
      this.siftDown(0);
    }
  }

  private heaviestWithRoom(shard: number): number {
    let best = -1;
    for (let worker = 0; worker < this.weights.length; worker++) {
      // Strictly heavier: of equal weights the first worker (in id order) wins, as in the sort.
      if (this.hasRoom(worker) && (best < 0 || this.weights[worker][shard] > this.weights[best][shard]))
        best = worker;
    }
    return best;
  }

  /** Whether shard a's pair comes before shard b's: heavier, then lower worker, then lower shard. */
  private before(a: number, b: number): boolean {
    const workerA = this.candidate[a];
    const workerB = this.candidate[b];
    const weightA = this.weights[workerA][a];
    const weightB = this.weights[workerB][b];
    if (weightA !== weightB)
      // Stryker disable next-line EqualityOperator: equivalent, `>=` is reached only when the weights differ, where it answers as `>`
      return weightA > weightB;
    return workerA !== workerB
      ? // Stryker disable next-line EqualityOperator: equivalent, `<=` is reached only when the workers differ, where it answers as `<`
        workerA < workerB
      : a < b;
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let top = i;
      if (left < heap.length && this.before(heap[left], heap[top])) top = left;
      if (right < heap.length && this.before(heap[right], heap[top])) top = right;
      if (top === i) return;
      [heap[i], heap[top]] = [heap[top], heap[i]];
      i = top;
    }
  }
}

/**
 * hash(worker, shard) for every shard: 48 bits of sha256, an exact integer in a double, and
 * collisions negligible at any fleet size. A worker's weights never change, so they are kept for
 * the next assignment (membership changes recompute it); the memo is bounded by clearing it whole.
 */
function rendezvousWeights(workerId: string, shardCount: number): Float64Array {
  const key = `${shardCount}\n${workerId}`;
  let weights = weightMemo.get(key);
  // Stryker disable next-line ConditionalExpression: equivalent, recomputing the weights every time gives the same weights (slower only)
  if (!weights) {
    weights = new Float64Array(shardCount);
    // Stryker disable next-line EqualityOperator: equivalent, `<=` writes once past the typed array's end, which ignores it
    for (let shard = 0; shard < shardCount; shard++) {
      weights[shard] = createHash('sha256').update(`${workerId}\n${shard}`, 'utf8').digest().readUIntBE(0, 6);
    }
    // Stryker disable next-line ConditionalExpression, EqualityOperator: equivalent, when the memo is cleared changes speed and memory, never a weight
    if (weightMemo.size >= WEIGHT_MEMO_WORKERS) weightMemo.clear();
    weightMemo.set(key, weights);
  }
  return weights;
}

const WEIGHT_MEMO_WORKERS = 256;
const weightMemo = new Map<string, Float64Array>();
