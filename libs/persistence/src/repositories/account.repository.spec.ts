import type { Plan } from '../models/plan';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { AccountRepository } from './account.repository';
import { PlanRepository } from './plan.repository';
import { UnknownPlanError } from './unknown-plan.error';

describe('AccountRepository', () => {
  let db: MigratedTestDatabase;
  let accounts: AccountRepository;
  let basic: Plan;
  let pro: Plan;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    accounts = new AccountRepository(db.dataSource);
    const plans = new PlanRepository(db.dataSource);
    basic = await plans.create({ name: 'basic', monthlyApiHits: 1000, maxSessions: 1 });
    pro = await plans.create({ name: 'pro', monthlyApiHits: 100_000, maxSessions: 10 });
  });
  afterAll(() => db.close());

  it('creates an account, not suspended, and finds it', async () => {
    const account = await accounts.create({ name: 'Acme', planId: basic.id });
    expect(account).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Acme',
      planId: basic.id,
      suspended: false,
      createdAt: expect.any(Date),
    });
    expect(await accounts.findById(account.id)).toEqual(account);
  });

  it('refuses an unknown or malformed plan id', async () => {
    await expect(
      accounts.create({ name: 'x', planId: '00000000-0000-4000-8000-000000000000' }),
    ).rejects.toBeInstanceOf(UnknownPlanError);
    await expect(accounts.create({ name: 'x', planId: 'basic' })).rejects.toBeInstanceOf(UnknownPlanError);
  });

  it('lists accounts oldest first', async () => {
    const first = await accounts.create({ name: 'First', planId: basic.id });
    const second = await accounts.create({ name: 'Second', planId: pro.id });
    const ids = (await accounts.list()).map((account) => account.id);
    expect(ids.indexOf(first.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(second.id));
  });

  it('answers null, never a database error, for malformed and unknown ids', async () => {
    expect(await accounts.findById('42')).toBeNull();
    expect(await accounts.findById("'; DROP TABLE accounts; --")).toBeNull();
    expect(await accounts.findById('00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await accounts.update('nope', { suspended: true })).toBeNull();
    expect(await accounts.update('00000000-0000-4000-8000-000000000000', { suspended: true })).toBeNull();
    expect(await accounts.findWithPlan('nope')).toBeNull();
    expect(await accounts.findWithPlan('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('updates only the given fields', async () => {
    const account = await accounts.create({ name: 'Mover', planId: basic.id });

    const suspended = await accounts.update(account.id, { suspended: true });
    expect(suspended).toEqual({ ...account, suspended: true });

    const moved = await accounts.update(account.id, { planId: pro.id });
    expect(moved).toEqual({ ...account, suspended: true, planId: pro.id });

    const both = await accounts.update(account.id, { planId: basic.id, suspended: false });
    expect(both).toEqual(account);

    expect(await accounts.update(account.id, {})).toEqual(account);
    await expect(
      accounts.update(account.id, { planId: '00000000-0000-4000-8000-000000000000' }),
    ).rejects.toBeInstanceOf(UnknownPlanError);
    expect(await accounts.findById(account.id)).toEqual(account);
  });

  it('finds an account together with its plan', async () => {
    const account = await accounts.create({ name: 'Joined', planId: pro.id });
    expect(await accounts.findWithPlan(account.id)).toEqual({ account, plan: pro });
  });

  // Authentication and quota checks read an account's plan here: another tenant's would be wrong.
  it("finds each account with its own plan, never another account's", async () => {
    const first = await accounts.create({ name: 'Tenant one', planId: basic.id });
    const second = await accounts.create({ name: 'Tenant two', planId: pro.id });
    expect(await accounts.findWithPlan(second.id)).toEqual({ account: second, plan: pro });
    expect(await accounts.findWithPlan(first.id)).toEqual({ account: first, plan: basic });
  });
});
