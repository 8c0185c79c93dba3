import { randomUUID } from 'node:crypto';
import { ACCESS_INVALIDATION_TOPIC, ApiError, encodeAccessInvalidation } from '@jumbe/contracts';
import { MemoryInvalidationBus, type InvalidationBus } from '@jumbe/coordination';
import {
  AccountRepository,
  openMigratedTestDatabase,
  PlanRepository,
  type MigratedTestDatabase,
  type Plan,
} from '@jumbe/persistence';
import { LossyInvalidationBus } from '../test-support/lossy-invalidation-bus';
import { AccountDirectory } from './account-directory';

describe('AccountDirectory (PostgreSQL)', () => {
  let db: MigratedTestDatabase;
  let accounts: AccountRepository;
  let starter: Plan;
  let business: Plan;

  async function started(bus: InvalidationBus): Promise<AccountDirectory> {
    const directory = new AccountDirectory(accounts, bus);
    await directory.start();
    return directory;
  }

  const newAccount = async () =>
    (await accounts.create({ name: `acct-${randomUUID()}`, planId: starter.id })).id;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    accounts = new AccountRepository(db.dataSource);
    const plans = new PlanRepository(db.dataSource);
    starter = await plans.create({ name: 'starter', monthlyApiHits: 100, maxSessions: 1 });
    business = await plans.create({ name: 'business', monthlyApiHits: 50_000, maxSessions: 5 });
  });
  afterAll(() => db.close());

  it('answers the account with its suspension and its plan limits', async () => {
    const directory = await started(new MemoryInvalidationBus());
    const id = await newAccount();
    await expect(directory.get(id)).resolves.toEqual({
      accountId: id,
      suspended: false,
      plan: { id: starter.id, name: 'starter', monthlyApiHits: 100, maxSessions: 1 },
    });
  });

  it('refuses an account that does not exist with 401 unauthorized', async () => {
    const directory = await started(new MemoryInvalidationBus());
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const error = await directory.get(id).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('unauthorized');
      expect((error as ApiError).status).toBe(401);
    }
  });

  it('answers 503 naming the database, not 401, when the account cannot be looked up', async () => {
    const down = {
      findWithPlan: async () => {
        throw new Error('Connection terminated unexpectedly');
      },
    };
    const directory = new AccountDirectory(down, new MemoryInvalidationBus());
    await directory.start();

    const error = await directory.get(randomUUID()).catch((reason: unknown) => reason);
    expect(error).toMatchObject({
      status: 503,
      message: 'Service temporarily unavailable (database unreachable). Retry shortly.',
    });
  });

  it('serves an account from its cache until told otherwise', async () => {
    const directory = await started(new MemoryInvalidationBus());
    const id = await newAccount();
    await directory.get(id);
    await accounts.update(id, { suspended: true }); // no invalidation published
    expect((await directory.get(id)).suspended).toBe(false);
  });

  it('sees a suspension at once when the account invalidation is published', async () => {
    const bus = new MemoryInvalidationBus();
    const directory = await started(bus);
    const id = await newAccount();
    await directory.get(id);

    await accounts.update(id, { suspended: true, planId: business.id });
    await bus.publish(
      ACCESS_INVALIDATION_TOPIC,
      encodeAccessInvalidation({ v: 1, kind: 'account', accountId: id }),
    );

    expect(await directory.get(id)).toEqual({
      accountId: id,
      suspended: true,
      plan: { id: business.id, name: 'business', monthlyApiHits: 50_000, maxSessions: 5 },
    });
  });

  it('leaves other accounts cached on an account invalidation', async () => {
    const bus = new MemoryInvalidationBus();
    const directory = await started(bus);
    const [changed, untouched] = [await newAccount(), await newAccount()];
    await directory.get(changed);
    await directory.get(untouched);
    await accounts.update(changed, { suspended: true });
    await accounts.update(untouched, { suspended: true });

    await bus.publish(
      ACCESS_INVALIDATION_TOPIC,
      encodeAccessInvalidation({ v: 1, kind: 'account', accountId: changed }),
    );

    expect((await directory.get(changed)).suspended).toBe(true);
    expect((await directory.get(untouched)).suspended).toBe(false);
  });

  it('sees new plan limits on every account after a plan invalidation', async () => {
    const bus = new MemoryInvalidationBus();
    const directory = await started(bus);
    const plan = await new PlanRepository(db.dataSource).create({
      name: `edited-${randomUUID()}`,
      monthlyApiHits: 10,
      maxSessions: 1,
    });
    const ids = [
      (await accounts.create({ name: 'one', planId: plan.id })).id,
      (await accounts.create({ name: 'two', planId: plan.id })).id,
    ];
    for (const id of ids) expect((await directory.get(id)).plan.monthlyApiHits).toBe(10);

    await db.dataSource.query('UPDATE plans SET monthly_api_hits = 20 WHERE id = $1', [plan.id]);
    await bus.publish(
      ACCESS_INVALIDATION_TOPIC,
      encodeAccessInvalidation({ v: 1, kind: 'plan', planId: plan.id }),
    );

    for (const id of ids) expect((await directory.get(id)).plan.monthlyApiHits).toBe(20);
  });

  it('drops every cached account on an invalidation message it cannot read (a newer publisher)', async () => {
    const bus = new MemoryInvalidationBus();
    const directory = await started(bus);
    const id = await newAccount();
    await directory.get(id);
    await accounts.update(id, { suspended: true });

    await bus.publish(ACCESS_INVALIDATION_TOPIC, JSON.stringify({ v: 2, kind: 'account', accountIds: [id] }));

    expect((await directory.get(id)).suspended).toBe(true);
  });

  it('drops everything it cached when invalidations may have been lost', async () => {
    const bus = new LossyInvalidationBus();
    const directory = await started(bus);
    const id = await newAccount();
    await directory.get(id);
    await accounts.update(id, { suspended: true }); // its invalidation is "lost"

    expect((await directory.get(id)).suspended).toBe(false);
    bus.simulatePossibleLoss();

    expect((await directory.get(id)).suspended).toBe(true);
  });
});
