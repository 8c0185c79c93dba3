import { createAccountFixture, type AccountFixture } from '../testing/account-fixture';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { NetworkCredentialStore } from './network-credential-store';
import { SessionProxyRepository } from './session-proxy.repository';
import { SessionStartRepository } from './session-start.repository';

describe('SessionStartRepository', () => {
  let db: MigratedTestDatabase;
  let start: SessionStartRepository;
  let credentials: NetworkCredentialStore;
  let proxies: SessionProxyRepository;
  let account: AccountFixture;

  const CREDS = { kind: 'creds', keyId: 'creds' };
  const value = (text: string) => Buffer.from(text);
  const sorted = (keys: { kind: string; keyId: string }[] | null) =>
    keys?.map((key) => `${key.kind}.${key.keyId}`).sort() ?? null;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    start = new SessionStartRepository(db.dataSource);
    credentials = new NetworkCredentialStore(db.dataSource);
    proxies = new SessionProxyRepository(db.dataSource);
    account = await createAccountFixture(db);
  });
  afterAll(() => db.close());

  it('answers the proxy, the creds and the key index in one statement, as the three separate reads do', async () => {
    const ref = await account.session('opening', { state: 'connected', ownerToken: 3 });
    const other = await account.session('opening-other', { state: 'connected', ownerToken: 3 });
    await credentials.write(ref, 3, [
      { kind: 'creds', keyId: 'creds', value: value('the creds') },
      { kind: 'session', keyId: 's1', value: value('a') },
      { kind: 'tctoken', keyId: 't1', value: value('b') },
      { kind: 'pre-key', keyId: '1', value: value('c') },
    ]);
    await credentials.write(other, 3, [{ kind: 'session', keyId: 'elsewhere', value: value('d') }]);
    await proxies.save(ref.accountId, ref.sessionId, {
      maskedUrl: 'socks5://x',
      urlCiphertext: 'sealed-url',
    });
    await proxies.save(other.accountId, other.sessionId, { maskedUrl: 'socks5://y', urlCiphertext: 'other' });

    const query = jest.spyOn(db.dataSource, 'query');
    const read = await start.startOf(ref, CREDS, ['pre-key'], 10);
    expect(query).toHaveBeenCalledTimes(1);
    query.mockRestore();

    expect(read.sealedProxy).toBe(await proxies.sealedProxyOf(ref));
    expect(read.creds?.toString()).toBe('the creds');
    expect(read.creds).toEqual((await credentials.read(ref, 'creds', ['creds'])).get('creds'));
    expect(sorted(read.storedKeys)).toEqual(['creds.creds', 'session.s1', 'tctoken.t1']);
    expect(sorted(read.storedKeys)).toEqual(sorted(await credentials.storedKeys(ref, ['pre-key'], 10)));
  });

  it('answers nulls and an empty index for a session with nothing stored', async () => {
    const ref = await account.session('bare', { state: 'connected' });
    expect(await start.startOf(ref, CREDS, ['pre-key'], 10)).toEqual({
      sealedProxy: null,
      creds: null,
      storedKeys: [],
    });
    expect(await start.startOf({ accountId: 'not-a-uuid', sessionId: 'bare' }, CREDS, [], 10)).toEqual({
      sealedProxy: null,
      creds: null,
      storedKeys: [],
    });
  });

  it('answers no index past the limit (the store is asked about each key then), the creds still', async () => {
    const ref = await account.session('large', { state: 'connected', ownerToken: 3 });
    await credentials.write(ref, 3, [
      { kind: 'creds', keyId: 'creds', value: value('big') },
      { kind: 'session', keyId: 's1', value: value('a') },
      { kind: 'session', keyId: 's2', value: value('b') },
    ]);
    const read = await start.startOf(ref, CREDS, [], 2);
    expect(read.storedKeys).toBeNull();
    expect(read.creds?.toString()).toBe('big');
    expect(sorted((await start.startOf(ref, CREDS, [], 3)).storedKeys)).toEqual([
      'creds.creds',
      'session.s1',
      'session.s2',
    ]);
  });
});
