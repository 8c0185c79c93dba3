import { CallBatcher } from './call-batcher';

describe('CallBatcher', () => {
  it('sends the calls of one turn together, those made while a batch is out in the next, each with its own answer', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const batcher = new CallBatcher<number, number>(async (inputs) => {
      batches.push(inputs);
      if (batches.length === 1) await held;
      return inputs.map((input) => input * 10);
    });

    const first = [1, 2, 3].map((n) => batcher.call(n));
    await new Promise((resolve) => setImmediate(resolve));
    const second = [4, 5].map((n) => batcher.call(n));
    release();

    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('fails every call of a failed batch, and goes on with the next', async () => {
    let fail = true;
    const batcher = new CallBatcher<string, string>(async (inputs) => {
      if (fail) throw new Error('redis went away');
      return inputs;
    });
    const failed = [batcher.call('a'), batcher.call('b')];
    await expect(Promise.all(failed)).rejects.toThrow('redis went away');
    await expect(failed[1]).rejects.toThrow('redis went away');
    fail = false;
    expect(await batcher.call('c')).toBe('c');
  });

  it('splits a long queue into batches of at most the given size', async () => {
    const sizes: number[] = [];
    const batcher = new CallBatcher<number, number>(async (inputs) => {
      sizes.push(inputs.length);
      return inputs;
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.call(n)));
    expect(sizes).toEqual([2, 2, 1]);
  });
});
