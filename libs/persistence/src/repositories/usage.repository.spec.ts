import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { AccountRepository } from './account.repository';
import { PlanRepository } from './plan.repository';
import { DailyUsageRepository, UsageRepository } from './usage.repository';

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
    await expect(usage.load(accountId, '2030-1-1')).rejects.toThrow('Not a YYYY-MM-DD date: "2030-1-1"');
    await expect(
      usage.saveAtLeast('acme', '2030-10-01', { apiHits: 1, messagesSent: 0, sendFailures: 0 }),
    ).rejects.toThrow('Not an account id: "acme"');
    await expect(
      usage.saveAtLeast(accountId, '2030-10-01', { apiHits: -1, messagesSent: 0, sendFailures: 0 }),
    ).rejects.toThrow('Not a counter value: -1');
    await expect(
      usage.saveAtLeast(accountId, '2030-10-01', { apiHits: 1.5, messagesSent: 0, sendFailures: 0 }),
    ).rejects.toThrow(RangeError);
  });
});

// The usage chart's daily API hits: deltas that each gateway adds, per account and day.
describe('DailyUsageRepository', () => {
  let db: MigratedTestDatabase;
  let daily: DailyUsageRepository;
  let accountId: string;
  let otherId: string;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    daily = new DailyUsageRepository(db.dataSource);
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

  it("adds each gateway's hits to the day, folding a batch's duplicates, per account", async () => {
    await daily.addHits([
      { accountId, day: '2031-01-01', apiHits: 2 },
      // The same account's id in capitals: still the same account and day.
      { accountId: accountId.toUpperCase(), day: '2031-01-01', apiHits: 3 },
      { accountId, day: '2031-01-02', apiHits: 1 },
      { accountId: otherId, day: '2031-01-01', apiHits: 7 },
    ]);
    await daily.addHits([{ accountId, day: '2031-01-01', apiHits: 4 }]); // another gateway's flush
    expect(await daily.hitsBetween(accountId, '2031-01-01', '2031-02-01')).toEqual(
      new Map([
        ['2031-01-01', 9],
        ['2031-01-02', 1],
      ]),
    );
    expect(await daily.hitsBetween(otherId, '2031-01-01', '2031-02-01')).toEqual(
      new Map([['2031-01-01', 7]]),
    );
  });

  it('reads from the first day up to, not including, the last', async () => {
    await daily.addHits([
      { accountId, day: '2031-03-01', apiHits: 1 },
      { accountId, day: '2031-03-02', apiHits: 2 },
      { accountId, day: '2031-03-03', apiHits: 3 },
    ]);
    expect(await daily.hitsBetween(accountId, '2031-03-02', '2031-03-03')).toEqual(
      new Map([['2031-03-02', 2]]),
    );
    expect(await daily.hitsBetween('not-a-uuid', '2031-03-01', '2031-04-01')).toEqual(new Map());
  });

  it('stores no day without hits, and drops the hits of a deleted account rather than the batch', async () => {
    await daily.addHits([
      { accountId, day: '2031-05-01', apiHits: 0 },
      { accountId: '00000000-0000-4000-8000-000000000000', day: '2031-05-02', apiHits: 5 },
      { accountId, day: '2031-05-02', apiHits: 1 },
    ]);
    await daily.addHits([{ accountId, day: '2031-05-03', apiHits: 0 }]);
    await daily.addHits([]);
    expect(await daily.hitsBetween(accountId, '2031-05-01', '2031-06-01')).toEqual(
      new Map([['2031-05-02', 1]]),
    );
    const [{ count }] = (await db.dataSource.query(
      `SELECT count(*)::int AS count FROM usage_daily WHERE day >= '2031-05-01' AND day < '2031-06-01'`,
    )) as { count: number }[];
    expect(count).toBe(1);
  });

  it('rejects malformed rows before reaching the database, naming what is wrong', async () => {
    await expect(daily.addHits([{ accountId: 'acme', day: '2031-07-01', apiHits: 1 }])).rejects.toThrow(
      'Not an account id: "acme"',
    );
    await expect(daily.addHits([{ accountId, day: '2031-7-1', apiHits: 1 }])).rejects.toThrow(RangeError);
    await expect(daily.addHits([{ accountId, day: '2031-07-01', apiHits: -1 }])).rejects.toThrow(
      'Not a counter value: -1',
    );
    await expect(daily.addHits([{ accountId, day: '2031-07-01', apiHits: 1.5 }])).rejects.toThrow(RangeError);
    await expect(daily.hitsBetween(accountId, '2031-07-01', 'July')).rejects.toThrow(RangeError);
  });
});
