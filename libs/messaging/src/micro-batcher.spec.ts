import { MicroBatcher } from './micro-batcher';

/** A batch runner that records the batches it ran and answers each input doubled. */
function doubling(
  options: {
    holdFirst?: boolean;
    failWhen?: (inputs: number[]) => boolean;
    isolateFailures?: boolean;
    concurrency?: number;
    lingerMs?: number;
  } = {},
) {
  const batches: number[][] = [];
  let release: (() => void) | null = null;
  const batcher = new MicroBatcher<number, number>(
    async (inputs) => {
      batches.push(inputs);
      if (options.holdFirst && batches.length === 1)
        await new Promise<void>((resolve) => (release = resolve));
      if (options.failWhen?.(inputs)) throw new Error(`refused ${inputs.join(',')}`);
      return inputs.map((input) => input * 2);
    },
    {
      isolateFailures: options.isolateFailures,
      concurrency: options.concurrency,
      lingerMs: options.lingerMs,
    },
  );
  return { batcher, batches, releaseFirst: () => release?.() };
}

const settleAll = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);
const nextTick = () => new Promise((resolve) => setImmediate(resolve));

describe('MicroBatcher', () => {
  it('runs the calls of one tick as one batch, and those made while it runs as the next', async () => {
    const { batcher, batches, releaseFirst } = doubling({ holdFirst: true });
    const first = [batcher.submit(1), batcher.submit(2)];
    await nextTick();
    const later = [batcher.submit(3), batcher.submit(4), batcher.submit(5)];
    releaseFirst();

    expect(await Promise.all([...first, ...later])).toEqual([2, 4, 6, 8, 10]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('with a concurrency of 2, runs the next batch while the first is still in flight', async () => {
    const { batcher, batches, releaseFirst } = doubling({ holdFirst: true, concurrency: 2 });
    const first = batcher.submit(1);
    await nextTick();
    const second = [batcher.submit(2), batcher.submit(3)];
    await nextTick();
    // The second batch ran to the end although the first is still held.
    expect(await Promise.all(second)).toEqual([4, 6]);
    // One slot is free again: the calls of this tick go together at once, the first still held.
    const third = [batcher.submit(4), batcher.submit(5)];
    releaseFirst();
    expect(await Promise.all([first, ...third])).toEqual([2, 8, 10]);
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it("fails only the caller whose input the batch was refused for (the others' are run alone)", async () => {
    const { batcher, batches } = doubling({ failWhen: (inputs) => inputs.includes(7) });
    const results = await settleAll([batcher.submit(6), batcher.submit(7), batcher.submit(8)]);

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[0]).toEqual({ status: 'fulfilled', value: 12 });
    expect(batches).toEqual([[6, 7, 8], [6], [7], [8]]);
  });

  it('fails the whole batch at once when told failures are never one input’s fault', async () => {
    const { batcher, batches } = doubling({ failWhen: () => true, isolateFailures: false });
    const results = await settleAll([batcher.submit(1), batcher.submit(2)]);

    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(batches).toEqual([[1, 2]]);
  });

  describe('with a linger', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('holds a lone call for the linger, so calls of the next turns join its batch', async () => {
      const { batcher, batches } = doubling({ lingerMs: 5 });
      const first = batcher.submit(1);
      await jest.advanceTimersByTimeAsync(4);
      // Another turn of the loop, within the linger: nothing has run yet.
      expect(batches).toEqual([]);
      const second = batcher.submit(2);
      await jest.advanceTimersByTimeAsync(1);

      expect(await Promise.all([first, second])).toEqual([2, 4]);
      expect(batches).toEqual([[1, 2]]);
    });

    it('starts the calls that waited for a busy batcher as soon as its batch is over', async () => {
      const { batcher, batches, releaseFirst } = doubling({ holdFirst: true, lingerMs: 5 });
      const first = batcher.submit(1);
      await jest.advanceTimersByTimeAsync(5);
      expect(batches).toEqual([[1]]);
      const waiting = [batcher.submit(2), batcher.submit(3)];
      await jest.advanceTimersByTimeAsync(5);
      // The linger is over, but the only slot is still busy.
      expect(batches).toEqual([[1]]);
      releaseFirst();
      // No second linger: they go with the end of the first batch.
      expect(await Promise.all([first, ...waiting])).toEqual([2, 4, 6]);
      expect(batches).toEqual([[1], [2, 3]]);
    });
  });
});
