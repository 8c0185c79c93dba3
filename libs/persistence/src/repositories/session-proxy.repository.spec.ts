import { SessionProxyVault } from '@jumbe/domain';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { SessionProxyRepository } from './session-proxy.repository';
import { createAccount } from './test-support/fixtures';

describe('SessionProxyRepository', () => {
  let db: MigratedTestDatabase;
  let proxies: SessionProxyRepository;
  const vault = new SessionProxyVault('a-secret-key-of-enough-length-0123456789');

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    proxies = new SessionProxyRepository(db.dataSource);
  });
  afterAll(() => db.close());

  it('keeps one proxy per account and session id: masked in clear, the URL only sealed', async () => {
    const account = await createAccount(db.dataSource);
    const other = await createAccount(db.dataSource);
    const url = 'socks5://shop:s3cr3t@proxy.example.com:1080';
    const urlCiphertext = vault.seal({ accountId: account, sessionId: 'shop' }, url);
    const saved = await proxies.save(account, 'shop', {
      maskedUrl: 'socks5://shop:****@proxy.example.com:1080',
      urlCiphertext,
    });
    expect(saved).toEqual({
      maskedUrl: 'socks5://shop:****@proxy.example.com:1080',
      urlCiphertext,
      updatedAt: expect.any(Date),
    });
    expect(await proxies.find(account, 'shop')).toEqual(saved);
    const sealed = await proxies.sealedProxyOf({ accountId: account, sessionId: 'shop' });
    expect(sealed === null ? null : vault.open({ accountId: account, sessionId: 'shop' }, sealed)).toBe(url);
    expect(await proxies.find(account, 'default')).toBeNull();
    expect(await proxies.find(other, 'shop')).toBeNull();
    expect(await proxies.find('not-a-uuid', 'shop')).toBeNull();
    const [row] = (await db.dataSource.query(`SELECT * FROM session_proxies WHERE account_id = $1`, [
      account,
    ])) as Record<string, unknown>[];
    expect(JSON.stringify(row)).not.toContain('s3cr3t');
  });

  it('replaces a proxy, and clears it (false when there was none)', async () => {
    const account = await createAccount(db.dataSource);
    await proxies.save(account, 'shop', {
      maskedUrl: 'http://a:****@one.example.com:3128',
      urlCiphertext: 'x',
    });
    await proxies.save(account, 'shop', {
      maskedUrl: 'http://b:****@two.example.com:3128',
      urlCiphertext: 'y',
    });
    expect(await proxies.find(account, 'shop')).toMatchObject({
      maskedUrl: 'http://b:****@two.example.com:3128',
    });
    expect(await proxies.delete(account, 'shop')).toBe(true);
    expect(await proxies.find(account, 'shop')).toBeNull();
    expect(await proxies.delete(account, 'shop')).toBe(false);
    expect(await proxies.delete('not-a-uuid', 'shop')).toBe(false);
  });

  it('goes with its account', async () => {
    const account = await createAccount(db.dataSource);
    await proxies.save(account, 'shop', {
      maskedUrl: 'socks5h://proxy.example.com:1080',
      urlCiphertext: 'x',
    });
    await db.dataSource.query(`DELETE FROM accounts WHERE id = $1`, [account]);
    expect(await proxies.find(account, 'shop')).toBeNull();
  });
});
