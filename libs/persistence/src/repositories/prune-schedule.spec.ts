import { PruneSchedule } from './prune-schedule';

describe('PruneSchedule', () => {
  it("is due on every 50th save of a session, counting each session's saves apart", () => {
    const schedule = new PruneSchedule();
    const sales = { accountId: 'a', sessionId: 'sales' };
    const support = { accountId: 'a', sessionId: 'support' };
    const dueAt = (ref: typeof sales, saves: number) =>
      Array.from({ length: saves }, (_, i) => i + 1).filter(() => schedule.due(ref));
    expect(dueAt(sales, 49)).toEqual([]);
    expect(dueAt(support, 10)).toEqual([]);
    expect(schedule.due(sales)).toBe(true);
    // The count restarts after a due save.
    expect(dueAt(sales, 100)).toEqual([50, 100]);
    expect(dueAt(support, 40)).toEqual([40]);
  });
});
