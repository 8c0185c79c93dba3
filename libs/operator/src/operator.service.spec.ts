import { MemoryInvalidationBus } from '@jumbe/coordination';
import { ACCESS_INVALIDATION_TOPIC, ApiError, decodeAccessInvalidation } from '@jumbe/contracts';
import {
  AccountRepository,
  ApiKeyRepository,
  type MigratedTestDatabase,
  openMigratedTestDatabase,
  PlanRepository,
  SendFailureRepository,
  SessionRepository,
  UsageRepository,
} from '@jumbe/persistence';
import { OperatorService } from './operator.service';

/**
 * The operator's service on its ports as the composition roots bind them: PostgreSQL's
 * repositories, and an invalidation bus a gateway would listen on.
 */
describe('OperatorService on PostgreSQL', () => {
  let db: MigratedTestDatabase;
  let invalidations: MemoryInvalidationBus;
  let operator: OperatorService;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
  }, 60_000);
  afterAll(() => db?.close());

  beforeEach(async () => {
    await db.dataSource.query('TRUNCATE plans CASCADE');
    const { dataSource } = db;
    invalidations = new MemoryInvalidationBus();
    operator = new OperatorService({
      plans: new PlanRepository(dataSource),
      accounts: new AccountRepository(dataSource),
      keys: new ApiKeyRepository(dataSource),
      usage: new UsageRepository(dataSource),
      sessions: new SessionRepository(dataSource),
      failures: new SendFailureRepository(dataSource),
      invalidations,
    });
  });

  it("answers a plan name that is taken with a conflict, as the store's refusal says", async () => {
    await operator.createPlan({ name: 'starter', monthlyApiHits: 100, maxSessions: 1 });

    const again = operator.createPlan({ name: 'starter', monthlyApiHits: 5, maxSessions: 2 });

    await expect(again).rejects.toBeInstanceOf(ApiError);
    await expect(again).rejects.toMatchObject({
      code: 'conflict',
      message: 'A plan named "starter" already exists.',
    });
    expect((await operator.listPlans()).map((plan) => plan.monthlyApiHits)).toEqual([100]);
  });

  it('announces a suspension to the gateways, which drop their cached copy of the account', async () => {
    await operator.createPlan({ name: 'starter', monthlyApiHits: 100, maxSessions: 1 });
    const account = await operator.createAccount({ name: 'shop', plan: 'starter' });
    const heard: unknown[] = [];
    await invalidations.subscribe(ACCESS_INVALIDATION_TOPIC, (message) =>
      heard.push(decodeAccessInvalidation(message)),
    );

    const updated = await operator.updateAccount(account.id, { suspended: true });

    expect(updated).toMatchObject({ id: account.id, plan: 'starter', suspended: true });
    expect(heard).toEqual([{ v: 1, kind: 'account', accountId: account.id }]);
  });
});
