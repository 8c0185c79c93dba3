import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { AccountRepository } from './account.repository';
import { PlanRepository } from './plan.repository';
import { UsageRepository } from './usage.repository';

describe('UsageRepository', () => {
  let db: MigratedTestDatabase;
  let usage: UsageRepository;
  let accountId: string;
  let otherId: string;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    usage = new UsageRepository(db.dataSource);
    const plan = await new PlanRepository(db.dataSource).create({
      name: 'p',
      monthlyApiHits: 10,
      maxSessions: 1,
    });
    const accounts = new AccountRepository(db.dataSource);
    accountId = (await accounts.create({ name: 'A', planId: plan.id })).id;
    otherId = (await accounts.create({ name: 'B', planId: plan.id })).id;
  });
  afterAll(() => db.close());

  it('loads zeros for a cycle with nothing recorded', async () => {
    expect(await usage.load(accountId, '2030-01-01')).toEqual({
      apiHits: 0,
      messagesSent: 0,
      sendFailures: 0,
    });
    expect(await usage.load('not-a-uuid', '2030-01-01')).toEqual({
      apiHits: 0,
      messagesSent: 0,
      sendFailures: 0,
    });
  });

  it('saves counters per account and cycle', async () => {
    await usage.saveAtLeast(accountId, '2030-02-01', { apiHits: 7, messagesSent: 3, sendFailures: 1 });
    expect(await usage.load(accountId, '2030-02-01')).toEqual({
      apiHits: 7,
      messagesSent: 3,
      sendFailures: 1,
    });
    expect(await usage.load(accountId, '2030-03-01')).toEqual({
      apiHits: 0,
      messagesSent: 0,
      sendFailures: 0,
    });
    expect(await usage.load(otherId, '2030-02-01')).toEqual({ apiHits: 0, messagesSent: 0, sendFailures: 0 });
  });

  it('never lowers a counter: each column keeps its maximum', async () => {
    await usage.saveAtLeast(accountId, '2030-04-01', { apiHits: 10, messagesSent: 5, sendFailures: 2 });
    await usage.saveAtLeast(accountId, '2030-04-01', { apiHits: 8, messagesSent: 9, sendFailures: 0 });
    expect(await usage.load(accountId, '2030-04-01')).toEqual({
      apiHits: 10,
      messagesSent: 9,
      sendFailures: 2,
    });
    await usage.saveAtLeast(accountId, '2030-04-01', { apiHits: 0, messagesSent: 0, sendFailures: 0 });
    expect(await usage.load(accountId, '2030-04-01')).toEqual({
      apiHits: 10,
      messagesSent: 9,
      sendFailures: 2,
    });
  });

  it('keeps values beyond 2^32 exact, as numbers', async () => {
    await usage.saveAtLeast(accountId, '2030-05-01', {
      apiHits: 2 ** 40 + 1,
      messagesSent: 0,
      sendFailures: 0,
    });
    const loaded = await usage.load(accountId, '2030-05-01');
    expect(loaded.apiHits).toBe(2 ** 40 + 1);
  });

  it('saves many rows in one statement, folding duplicates to their maximum', async () => {
    await usage.saveAtLeast(otherId, '2030-06-01', { apiHits: 100, messagesSent: 0, sendFailures: 0 });
    await usage.saveManyAtLeast([
      { accountId, periodStart: '2030-06-01', counters: { apiHits: 1, messagesSent: 1, sendFailures: 1 } },
      { accountId, periodStart: '2030-06-01', counters: { apiHits: 4, messagesSent: 0, sendFailures: 2 } },
      {
        accountId: otherId,
        periodStart: '2030-06-01',
        counters: { apiHits: 50, messagesSent: 6, sendFailures: 0 },
      },
      {
        accountId: otherId,
        periodStart: '2030-07-01',
        counters: { apiHits: 2, messagesSent: 0, sendFailures: 0 },
      },
    ]);
    expect(await usage.load(accountId, '2030-06-01')).toEqual({
      apiHits: 4,
      messagesSent: 1,
      sendFailures: 2,
    });
    expect(await usage.load(otherId, '2030-06-01')).toEqual({
      apiHits: 100,
      messagesSent: 6,
      sendFailures: 0,
    });
    expect(await usage.load(otherId, '2030-07-01')).toEqual({ apiHits: 2, messagesSent: 0, sendFailures: 0 });
    await expect(usage.saveManyAtLeast([])).resolves.toBeUndefined();
  });

  it('skips rows of accounts that no longer exist instead of failing the batch', async () => {
    await usage.saveManyAtLeast([
      {
        accountId: '00000000-0000-4000-8000-000000000000',
        periodStart: '2030-08-01',
        counters: { apiHits: 1, messagesSent: 0, sendFailures: 0 },
      },
      { accountId, periodStart: '2030-08-01', counters: { apiHits: 3, messagesSent: 0, sendFailures: 0 } },
    ]);
    expect(await usage.load(accountId, '2030-08-01')).toEqual({
      apiHits: 3,
      messagesSent: 0,
      sendFailures: 0,
    });
  });

  it('holds under concurrent writers: the result is the maximum of all writes', async () => {
    const values = Array.from({ length: 20 }, (_, i) => (i * 37) % 101);
    await Promise.all(
      values.map((apiHits) =>
        usage.saveAtLeast(accountId, '2030-09-01', { apiHits, messagesSent: 0, sendFailures: 0 }),
      ),
    );
    expect((await usage.load(accountId, '2030-09-01')).apiHits).toBe(Math.max(...values));
  });

  it('rejects malformed input before reaching the database', async () => {
    await expect(usage.load(accountId, '2030-1-1')).rejects.toThrow(RangeError);
    await expect(
      usage.saveAtLeast(accountId, '2030-10-01', { apiHits: -1, messagesSent: 0, sendFailures: 0 }),
    ).rejects.toThrow(RangeError);
    await expect(
      usage.saveAtLeast(accountId, '2030-10-01', { apiHits: 1.5, messagesSent: 0, sendFailures: 0 }),
    ).rejects.toThrow(RangeError);
  });
});
