import { createAccountFixture, type AccountFixture } from '../testing/account-fixture';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { NetworkCredentialStore } from './network-credential-store';
import { SessionRepository } from './session.repository';

describe('NetworkCredentialStore', () => {
  let db: MigratedTestDatabase;
  let store: NetworkCredentialStore;
  let account: AccountFixture;

  const value = (text: string) => Buffer.from(text);

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    store = new NetworkCredentialStore(db.dataSource);
    account = await createAccountFixture(db);
  });
  afterAll(() => db.close());

  it('writes items in one batch, reads them by kind and ids, updates and deletes', async () => {
    const ref = await account.session('batch', { state: 'starting', ownerToken: 4 });
    expect(
      await store.write(ref, 4, [
        { kind: 'creds', keyId: 'creds', value: value('c1') },
        { kind: 'pre-key', keyId: '1', value: value('k1') },
        { kind: 'pre-key', keyId: '2', value: value('k2') },
        { kind: 'pre-key', keyId: '2', value: value('k2-last-wins') },
      ]),
    ).toBe('saved');
    const read = await store.read(ref, 'pre-key', ['1', '2', '3']);
    expect([...read.entries()].map(([id, bytes]) => [id, bytes.toString()])).toEqual([
      ['1', 'k1'],
      ['2', 'k2-last-wins'],
    ]);
    await store.write(ref, 4, [
      { kind: 'pre-key', keyId: '1', value: null },
      { kind: 'creds', keyId: 'creds', value: value('c2') },
    ]);
    expect((await store.read(ref, 'creds', ['creds'])).get('creds')?.toString()).toBe('c2');
    expect(await store.count(ref)).toBe(2);
  });

  it('lists which items a session stored (no values), leaving out the kinds asked, or null past the limit', async () => {
    const ref = await account.session('listed', { state: 'starting', ownerToken: 4 });
    const other = await account.session('listed-other', { state: 'starting', ownerToken: 4 });
    await store.write(ref, 4, [
      { kind: 'session', keyId: 's1', value: value('a') },
      { kind: 'tctoken', keyId: 't1', value: value('b') },
      { kind: 'pre-key', keyId: '1', value: value('c') },
    ]);
    await store.write(other, 4, [{ kind: 'session', keyId: 'elsewhere', value: value('d') }]);
    const listed = await store.storedKeys(ref, ['pre-key'], 2);
    expect(listed?.map((key) => `${key.kind}.${key.keyId}`).sort()).toEqual(['session.s1', 'tctoken.t1']);
    expect(await store.storedKeys(ref, [], 2)).toBeNull();
    expect(await store.storedKeys(ref, [], 3)).toHaveLength(3);
  });

  it('is fenced: a lower token than the owner writes nothing, a higher one may', async () => {
    const ref = await account.session('fence', { state: 'starting', ownerToken: 9 });
    expect(await store.write(ref, 8, [{ kind: 'creds', keyId: 'creds', value: value('stale') }])).toBe(
      'fenced',
    );
    expect(await store.clear(ref, 8)).toBe('fenced');
    expect(await store.count(ref)).toBe(0);
    expect(await store.write(ref, 10, [{ kind: 'creds', keyId: 'creds', value: value('new') }])).toBe(
      'saved',
    );
  });

  it('racing a take-over, a write lands wholly before it or not at all; after it the old owner is fenced', async () => {
    const ref = await account.session('race', { state: 'starting', ownerToken: 1 });
    const sessions = new SessionRepository(db.dataSource);
    const write = store.write(ref, 1, [{ kind: 'session', keyId: 'x', value: value('v') }]);
    const takeOver = sessions.saveState(ref, 2, { state: 'connecting', phoneNumber: null, reason: null });
    const [written, taken] = await Promise.all([write, takeOver]);
    expect(taken).toBe('saved');
    expect(await store.count(ref)).toBe(written === 'saved' ? 1 : 0);
    expect(await store.write(ref, 1, [{ kind: 'session', keyId: 'y', value: value('late') }])).toBe('fenced');
  });

  it('a write that arrives while a take-over holds the session row waits for it, then writes nothing', async () => {
    const ref = await account.session('held', { state: 'starting', ownerToken: 1 });
    const takeOver = db.dataSource.createQueryRunner();
    await takeOver.connect();
    await takeOver.startTransaction();
    try {
      await takeOver.query(`UPDATE sessions SET owner_token = 2 WHERE account_id = $1 AND session_id = $2`, [
        ref.accountId,
        ref.sessionId,
      ]);
      let settled = false;
      const write = store
        .write(ref, 1, [{ kind: 'session', keyId: 'x', value: value('stale') }])
        .finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(settled).toBe(false); // held back by the take-over's row lock
      await takeOver.commitTransaction();
      expect(await write).toBe('fenced');
      expect(await store.count(ref)).toBe(0);
    } finally {
      await takeOver.release();
    }
  });

  it('refuses sessions that do not exist, and clear removes everything of one session only', async () => {
    expect(await store.write({ accountId: account.accountId, sessionId: 'ghost' }, 1, [])).toBe('fenced');
    expect(await store.write({ accountId: 'not-a-uuid', sessionId: 'x' }, 1, [])).toBe('fenced');
    const a = await account.session('clear-a', { state: 'starting', ownerToken: 1 });
    const b = await account.session('clear-b', { state: 'starting', ownerToken: 1 });
    for (const ref of [a, b])
      await store.write(ref, 1, [{ kind: 'creds', keyId: 'creds', value: value('c') }]);
    expect(await store.clear(a, 1)).toBe('saved');
    expect(await store.count(a)).toBe(0);
    expect(await store.count(b)).toBe(1);
  });

  it('goes with the session when the session row is deleted', async () => {
    const ref = await account.session('cascade', { state: 'starting', ownerToken: 1 });
    await store.write(ref, 1, [{ kind: 'creds', keyId: 'creds', value: value('c') }]);
    await new SessionRepository(db.dataSource).delete(ref, 1);
    expect(await store.count(ref)).toBe(0);
  });
});
