import { createHash } from 'node:crypto';
import { assignShards, shardsFor } from './shard-assignment';
import { DEFAULT_SHARD_COUNT } from './shard-count';

/** shard → owner, for counting how many shards changed hands between two assignments. */
function ownerByShard(assignment: Map<string, number[]>, shardCount = DEFAULT_SHARD_COUNT): string[] {
  const owners = new Array<string>(shardCount);
  for (const [workerId, shards] of assignment) for (const shard of shards) owners[shard] = workerId;
  return owners;
}

function movedShards(before: Map<string, number[]>, after: Map<string, number[]>): number {
  const a = ownerByShard(before);
  const b = ownerByShard(after);
  return a.filter((owner, shard) => owner !== b[shard]).length;
}

function workerIds(count: number, seed: string): string[] {
  return Array.from({ length: count }, (_, i) => `worker-${seed}-${i}`);
}

describe('assignShards', () => {
  it.each([1, 2, 3, 4, 5, 6, 7])('gives each of %i workers every shard once, sizes within 1', (count) => {
    const workers = workerIds(count, 'even');
    const assignment = assignShards(workers);
    expect([...assignment.keys()]).toEqual([...workers].sort());
    const all = [...assignment.values()].flat().sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: DEFAULT_SHARD_COUNT }, (_, i) => i));
    const sizes = [...assignment.values()].map((shards) => shards.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    for (const shards of assignment.values()) expect(shards).toEqual([...shards].sort((a, b) => a - b));
  });

  it('spreads evenly for a shard count that does not divide, and for more workers than shards', () => {
    const sizes = (workers: number, shards: number): number[] =>
      [...assignShards(workerIds(workers, 'odd'), shards).values()].map((owned) => owned.length).sort();
    expect(sizes(3, 10)).toEqual([3, 3, 4]);
    expect(sizes(5, 3)).toEqual([0, 0, 1, 1, 1]);
  });

  it('depends only on the set of workers: not on order, not on duplicates', () => {
    const workers = ['w-c', 'w-a', 'w-e', 'w-b', 'w-d'];
    const expected = assignShards(workers);
    expect(assignShards([...workers].reverse())).toEqual(expected);
    expect(assignShards(['w-b', 'w-d', 'w-a', 'w-e', 'w-c', 'w-a'])).toEqual(expected);
    // Map equality ignores order in Jest; key order is part of the contract too.
    expect([...assignShards([...workers].reverse()).keys()]).toEqual(['w-a', 'w-b', 'w-c', 'w-d', 'w-e']);
  });

  it('assigns nothing when no worker is live, and rejects a nonsensical shard count', () => {
    expect(assignShards([])).toEqual(new Map());
    expect(() => assignShards(['w'], 0)).toThrow(RangeError);
    expect(() => assignShards(['w'], 2.5)).toThrow(RangeError);
    // The message is what an operator sees of a misconfigured shard count: it names the value.
    expect(() => assignShards(['w'], 0)).toThrow('shardCount must be a positive integer, got 0');
    expect(() => assignShards(['w'], -3)).toThrow('shardCount must be a positive integer, got -3');
  });

  describe('moves few shards when membership changes', () => {
    // The unavoidable moves are the shards the newcomer ends up with (join) or the leaver had
    // (leave). Measured over these 25 worker sets per size: on average 1.0x–1.46x that (growing
    // with the number of workers), and never more than 7 extra moves for one change.
    const MAX_EXTRA_MOVES = 8;
    const MAX_AVERAGE_RATIO = 1.5;
    const seeds = Array.from({ length: 25 }, (_, i) => `s${i}`);

    it.each([1, 2, 3, 4, 5, 6, 7])('on a join to %i workers', (count) => {
      let moved = 0;
      let unavoidable = 0;
      for (const seed of seeds) {
        const before = workerIds(count, seed);
        const after = [...before, `worker-${seed}-joiner`];
        const newAssignment = assignShards(after);
        const moves = movedShards(assignShards(before), newAssignment);
        const needed = newAssignment.get(`worker-${seed}-joiner`)?.length ?? 0;
        expect(moves).toBeGreaterThanOrEqual(needed);
        expect(moves - needed).toBeLessThanOrEqual(MAX_EXTRA_MOVES);
        moved += moves;
        unavoidable += needed;
      }
      expect(moved / unavoidable).toBeLessThanOrEqual(MAX_AVERAGE_RATIO);
    });

    it.each([2, 3, 4, 5, 6, 7])('on a leave from %i workers', (count) => {
      let moved = 0;
      let unavoidable = 0;
      for (const seed of seeds) {
        const before = workerIds(count, seed);
        const oldAssignment = assignShards(before);
        const leaver = before[Number(seed.slice(1)) % count] as string;
        const moves = movedShards(oldAssignment, assignShards(before.filter((id) => id !== leaver)));
        const needed = oldAssignment.get(leaver)?.length ?? 0;
        expect(moves).toBeGreaterThanOrEqual(needed);
        expect(moves - needed).toBeLessThanOrEqual(MAX_EXTRA_MOVES);
        moved += moves;
        unavoidable += needed;
      }
      expect(moved / unavoidable).toBeLessThanOrEqual(MAX_AVERAGE_RATIO);
    });

    it('does much better than modulo placement would', () => {
      // `shard % n` moves about S·(n-1)/n shards from 4 to 5 workers; this moves about S/5.
      const before = workerIds(4, 'modulo');
      const moves = movedShards(assignShards(before), assignShards([...before, 'worker-modulo-4']));
      expect(moves).toBeLessThan(DEFAULT_SHARD_COUNT / 3);
    });
  });
});

describe('shardsFor', () => {
  it("is that worker's part of the assignment, and nothing for a worker that is not live", () => {
    const workers = ['w-1', 'w-2', 'w-3'];
    const assignment = assignShards(workers);
    for (const workerId of workers) expect(shardsFor(workerId, workers)).toEqual(assignment.get(workerId));
    expect(shardsFor('w-4', workers)).toEqual([]);
    expect(shardsFor('w-1', ['w-1'])).toHaveLength(DEFAULT_SHARD_COUNT);
  });
});

/**
 * The assignment as first written: every (worker, shard) pair weighted, all of them sorted
 * heaviest first, each shard to its first worker with room. The heap in assignShards must reach
 * exactly the same result (workers of different releases must agree during an upgrade).
 */
function assignBySortingEveryPair(
  liveWorkerIds: readonly string[],
  shardCount: number,
): Map<string, number[]> {
  const workers = [...new Set(liveWorkerIds)].sort();
  const result = new Map<string, number[]>(workers.map((workerId) => [workerId, []]));
  const weight = (workerId: string, shard: number) =>
    createHash('sha256').update(`${workerId}\n${shard}`, 'utf8').digest().readUIntBE(0, 6);
  const pairs = workers.flatMap((workerId) =>
    Array.from({ length: shardCount }, (_, shard) => ({ workerId, shard, weight: weight(workerId, shard) })),
  );
  pairs.sort(
    (a, b) =>
      b.weight - a.weight ||
      (a.workerId < b.workerId ? -1 : a.workerId > b.workerId ? 1 : 0) ||
      a.shard - b.shard,
  );
  const baseLoad = Math.floor(shardCount / workers.length);
  let extraSlots = shardCount % workers.length;
  const owned = new Set<number>();
  for (const { workerId, shard } of pairs) {
    const shards = result.get(workerId)!;
    if (owned.has(shard)) continue;
    if (shards.length < baseLoad || (shards.length === baseLoad && extraSlots > 0)) {
      if (shards.length === baseLoad) extraSlots -= 1;
      shards.push(shard);
      owned.add(shard);
    }
  }
  for (const shards of result.values()) shards.sort((a, b) => a - b);
  return result;
}

describe('assignShards at scale', () => {
  it.each([
    [1, 64],
    [3, 10],
    [5, 3],
    [7, 64],
    [13, 100],
    [50, 1_024],
  ])('gives %i workers over %i shards exactly what sorting every pair gives', (workers, shards) => {
    for (const seed of ['a', 'b']) {
      const ids = workerIds(workers, `ref-${seed}`);
      expect(assignShards(ids, shards)).toEqual(assignBySortingEveryPair(ids, shards));
    }
  });

  it('spreads 1,024 shards over 50 workers within one of each other, and after 5 leave, over 45', () => {
    const ids = workerIds(50, 'fleet');
    const sizes = (assignment: Map<string, number[]>) =>
      [...assignment.values()].map((owned) => owned.length);
    expect(new Set(sizes(assignShards(ids, 1_024)))).toEqual(new Set([20, 21]));
    expect(new Set(sizes(assignShards(ids.slice(5), 1_024)))).toEqual(new Set([22, 23]));
  });
});

describe('assignShards on equal weights', () => {
  const weight = (workerId: string, shard: number) =>
    createHash('sha256').update(`${workerId}\n${shard}`, 'utf8').digest().readUIntBE(0, 6);

  it('gives a shard two workers weigh equally to the first in id order, as sorting every pair does', () => {
    // A 48-bit tie, found by a birthday search over 2^25 worker ids; the premise is checked here.
    // Any tie-break is deterministic; this one is the reference's, which older workers use.
    const [first, second] = ['worker-tie-30556880', 'worker-tie-7814272'];
    expect(weight(first, 0)).toBe(weight(second, 0));
    const expected = new Map([
      [first, [0]],
      [second, []],
    ]);
    expect(assignShards([second, first], 1)).toEqual(expected);
    expect(assignBySortingEveryPair([second, first], 1)).toEqual(expected);
  });

  it('takes two pairs of equal weight on different shards first in id order, as sorting every pair does', () => {
    // Another tie from that search, between shard 1 of one worker and shard 3 of another. With this
    // third worker and 25 shards, the tied pairs come when one extra slot is left: whichever worker
    // is served first keeps its shard, the other's goes to the third worker.
    const [first, second, third] = ['worker-tie-26126958', 'worker-tie-29949974', 'worker-c-84'];
    expect(weight(first, 1)).toBe(weight(second, 3));
    const expected = new Map([
      [third, [0, 2, 3, 4, 5, 15, 16, 24]],
      [first, [1, 6, 7, 8, 9, 10, 12, 13, 17]],
      [second, [11, 14, 18, 19, 20, 21, 22, 23]],
    ]);
    expect(assignShards([third, second, first], 25)).toEqual(expected);
    expect(assignBySortingEveryPair([third, second, first], 25)).toEqual(expected);
  });
});
