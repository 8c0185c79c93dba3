import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { type NewSendFailure, SendFailureRepository } from './send-failure.repository';
import { createAccount } from './test-support/fixtures';

describe('SendFailureRepository', () => {
  let db: MigratedTestDatabase;
  let failures: SendFailureRepository;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    failures = new SendFailureRepository(db.dataSource);
  });
  afterAll(() => db.close());

  const failure = (
    accountId: string,
    sessionId: string,
    to: string | null,
    message: string,
  ): NewSendFailure => ({
    accountId,
    sessionId,
    to,
    type: 'text',
    code: 'session_not_connected',
    message,
  });

  it('records a failure and lists it back with an id and time', async () => {
    const account = await createAccount(db.dataSource);
    const before = Date.now();
    await failures.record(failure(account, 'main', '255700000001', 'not connected'));

    const listed = await failures.list(account, { limit: 10 });
    expect(listed).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        accountId: account,
        sessionId: 'main',
        to: '255700000001',
        type: 'text',
        code: 'session_not_connected',
        message: 'not connected',
        createdAt: expect.any(Date),
      },
    ]);
    expect(listed[0]?.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
  });

  it('keeps a missing recipient as null', async () => {
    const account = await createAccount(db.dataSource);
    await failures.record(failure(account, 'main', null, 'no recipient'));
    expect((await failures.list(account, { limit: 10 }))[0]?.to).toBeNull();
  });

  it('lists newest first, up to the limit', async () => {
    const account = await createAccount(db.dataSource);
    for (const n of [1, 2, 3, 4, 5]) await failures.record(failure(account, 'main', null, `failure ${n}`));

    expect((await failures.list(account, { limit: 10 })).map((f) => f.message)).toEqual([
      'failure 5',
      'failure 4',
      'failure 3',
      'failure 2',
      'failure 1',
    ]);
    expect((await failures.list(account, { limit: 2 })).map((f) => f.message)).toEqual([
      'failure 5',
      'failure 4',
    ]);
  });

  it('filters by session', async () => {
    const account = await createAccount(db.dataSource);
    await failures.record(failure(account, 'one', null, 'one-a'));
    await failures.record(failure(account, 'two', null, 'two-a'));
    await failures.record(failure(account, 'one', null, 'one-b'));

    expect((await failures.list(account, { sessionId: 'one', limit: 10 })).map((f) => f.message)).toEqual([
      'one-b',
      'one-a',
    ]);
    expect((await failures.list(account, { sessionId: 'two', limit: 10 })).map((f) => f.message)).toEqual([
      'two-a',
    ]);
    expect(await failures.list(account, { sessionId: 'three', limit: 10 })).toEqual([]);
  });

  it("never shows one account's failures to another", async () => {
    const alice = await createAccount(db.dataSource);
    const bob = await createAccount(db.dataSource);
    await failures.record(failure(alice, 'main', null, 'alice only'));

    expect(await failures.list(bob, { limit: 10 })).toEqual([]);
    expect(await failures.list(bob, { sessionId: 'main', limit: 10 })).toEqual([]);
    expect(await failures.list('not-a-uuid', { limit: 10 })).toEqual([]);
    expect((await failures.list(alice, { limit: 10 })).map((f) => f.message)).toEqual(['alice only']);
  });
});
