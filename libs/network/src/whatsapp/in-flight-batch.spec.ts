import { InFlightBatch } from './in-flight-batch';

/** Resolves `ms` later (a task that finishes turns after another). */
const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('InFlightBatch', () => {
  let flushes: string[][];
  let batch: InFlightBatch<string>;
  beforeEach(() => {
    flushes = [];
    batch = new InFlightBatch<string>(async (items) => {
      flushes.push([...items]);
    });
  });

  it('hands over what concurrent tasks produced in one call, also when they finish turns apart', async () => {
    const results = await Promise.all([
      batch.run(async () => ({ value: 'a', items: ['a1', 'a2'] })),
      batch.run(async () => {
        await after(20);
        return { value: 'b', items: ['b1'] };
      }),
      batch.run(async () => {
        await after(5);
        return { value: 'c', items: ['c1'] };
      }),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(flushes).toEqual([['a1', 'a2', 'c1', 'b1']]);
  });

  it('returns a task’s value only once the call carrying its items has finished', async () => {
    const order: string[] = [];
    let release!: () => void;
    const slow = new InFlightBatch<string>(async (items) => {
      order.push(`flush started ${items.join(',')}`);
      await new Promise<void>((resolve) => (release = resolve));
      order.push('flush done');
    });
    const running = slow
      .run(async () => ({ value: 'x', items: ['x1'] }))
      .then((value) => {
        order.push(`returned ${value}`);
      });
    await after(10);
    expect(order).toEqual(['flush started x1']);
    release();
    await running;
    expect(order).toEqual(['flush started x1', 'flush done', 'returned x']);
  });

  it('fails every task of a batch whose call failed, and the next batch is a new call', async () => {
    let fail = true;
    const failing = new InFlightBatch<string>(async (items) => {
      flushes.push([...items]);
      if (fail) throw new Error('fenced');
    });
    const first = await Promise.allSettled([
      failing.run(async () => ({ value: 1, items: ['a'] })),
      failing.run(async () => {
        await after(5);
        return { value: 2, items: ['b'] };
      }),
    ]);
    expect(first.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(failing.run(async () => ({ value: 3, items: ['c'] }))).resolves.toBe(3);
    expect(flushes).toEqual([['a', 'b'], ['c']]);
  });

  it('a task that throws fails alone and does not hold the others’ batch', async () => {
    const outcomes = await Promise.allSettled([
      batch.run(async () => ({ value: 'ok', items: ['kept'] })),
      batch.run(async () => {
        await after(5);
        throw new Error('bad session');
      }),
    ]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 'ok' });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: new Error('bad session') });
    expect(flushes).toEqual([['kept']]);
  });

  it('a task that produced nothing returns at once and calls nothing', async () => {
    let flushed = false;
    const idle = new InFlightBatch<string>(async () => {
      flushed = true;
    });
    await expect(idle.run(async () => ({ value: 'none', items: [] }))).resolves.toBe('none');
    await after(5);
    expect(flushed).toBe(false);
  });

  it('a task started after the batch was handed over goes into the next one', async () => {
    let release!: () => void;
    const calls: string[][] = [];
    const slow = new InFlightBatch<string>(async (items) => {
      calls.push([...items]);
      if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = slow.run(async () => ({ value: 1, items: ['first'] }));
    await after(5);
    const second = slow.run(async () => ({ value: 2, items: ['second'] }));
    await expect(second).resolves.toBe(2);
    release();
    await expect(first).resolves.toBe(1);
    expect(calls).toEqual([['first'], ['second']]);
  });
});
