import { MediaBudgetExhaustedError, MediaByteBudget } from './media-byte-budget';

describe('MediaByteBudget (the worker-wide bytes of outbound media in flight)', () => {
  it('grants reservations while they fit, holds the next until room comes free, oldest first', async () => {
    const budget = new MediaByteBudget(10);
    const first = await budget.reserve(6, 60_000);
    const granted: string[] = [];
    const large = budget.reserve(8, 60_000).then((held) => (granted.push('large'), held));
    // Fits, but arrived after the large one: it waits behind it rather than starve it.
    const small = budget.reserve(2, 60_000).then((held) => (granted.push('small'), held));
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toEqual([]);
    expect(budget.inUse).toBe(6);

    first.release();
    (await large).release();
    await small;
    expect(granted).toEqual(['large', 'small']);
    expect(budget.inUse).toBe(2);
  });

  it('gives back what a file did not need once it is in, and releases once only', async () => {
    const budget = new MediaByteBudget(10);
    const held = await budget.reserve(10, 60_000);
    held.shrinkTo(3);
    expect(budget.inUse).toBe(3);
    const next = await budget.reserve(7, 60_000);
    held.release();
    held.release();
    expect(budget.inUse).toBe(7);
    next.release();
    expect(budget.inUse).toBe(0);
  });

  it('fails a reservation that finds no room within its wait, and lets the ones behind it in', async () => {
    const budget = new MediaByteBudget(10);
    const held = await budget.reserve(9, 60_000);
    const refused = budget.reserve(5, 10);
    const behind = budget.reserve(1, 60_000);
    await expect(refused).rejects.toBeInstanceOf(MediaBudgetExhaustedError);
    await behind;
    expect(budget.inUse).toBe(10);
    held.release();
  });

  it('reserves at most the whole budget: a file as large as the budget is never refused for its size', async () => {
    const budget = new MediaByteBudget(10);
    const held = await budget.reserve(64, 60_000);
    expect(budget.inUse).toBe(10);
    held.release();
    expect(budget.inUse).toBe(0);
  });
});
