import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { DuplicateNameError } from './duplicate-name.error';
import { PlanRepository } from './plan.repository';

describe('PlanRepository', () => {
  let db: MigratedTestDatabase;
  let plans: PlanRepository;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    plans = new PlanRepository(db.dataSource);
  });
  afterAll(() => db.close());

  it('creates a plan and returns it as plain data, with numbers for the bigint columns', async () => {
    const before = Date.now();
    const plan = await plans.create({ name: 'starter', monthlyApiHits: 5_000_000_000, maxSessions: 3 });
    expect(plan).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'starter',
      monthlyApiHits: 5_000_000_000,
      maxSessions: 3,
      createdAt: expect.any(Date),
    });
    expect(plan.createdAt.getTime()).toBeGreaterThan(before - 60_000);
    expect(Object.getPrototypeOf(plan)).toBe(Object.prototype);

    const found = await plans.findById(plan.id);
    expect(found).toEqual(plan);
    expect(typeof found?.monthlyApiHits).toBe('number');
  });

  it('refuses a second plan with the same name', async () => {
    await plans.create({ name: 'dup', monthlyApiHits: 10, maxSessions: 1 });
    const error = await plans
      .create({ name: 'dup', monthlyApiHits: 20, maxSessions: 2 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DuplicateNameError);
    expect((await plans.findByName('dup'))?.monthlyApiHits).toBe(10);
  });

  it('lists plans by name', async () => {
    await plans.create({ name: 'zeta', monthlyApiHits: 1, maxSessions: 1 });
    await plans.create({ name: 'alpha', monthlyApiHits: 1, maxSessions: 1 });
    const names = (await plans.list()).map((plan) => plan.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['alpha', 'zeta', 'starter', 'dup']));
  });

  it('finds by name, and answers null for unknown or malformed ids', async () => {
    const plan = await plans.create({ name: 'pro', monthlyApiHits: 100, maxSessions: 10 });
    expect((await plans.findByName('pro'))?.id).toBe(plan.id);
    expect(await plans.findByName('nope')).toBeNull();
    expect(await plans.findById('00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await plans.findById('not-a-uuid')).toBeNull();
  });
});
