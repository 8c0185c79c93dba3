import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { AccountRepository } from './account.repository';
import { WebhookVault } from '@jumbe/domain';
import { createAccount } from './test-support/fixtures';
import { WebhookRepository } from './webhook.repository';

describe('WebhookRepository', () => {
  let db: MigratedTestDatabase;
  let webhooks: WebhookRepository;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    webhooks = new WebhookRepository(db.dataSource);
  });
  afterAll(() => db.close());

  it('has no webhook for a new account, or for a malformed id', async () => {
    const account = await createAccount(db.dataSource);
    expect(await webhooks.find(account)).toBeNull();
    expect(await webhooks.find('not-a-uuid')).toBeNull();
  });

  it('saves a webhook and finds it back', async () => {
    const account = await createAccount(db.dataSource);
    await webhooks.save({
      accountId: account,
      url: 'https://example.test/hook',
      urlCiphertext: null,
      enabled: true,
      secretCiphertext: 'v1:cipher',
      events: ['message.received', 'session.status'],
    });
    expect(await webhooks.find(account)).toEqual({
      accountId: account,
      url: 'https://example.test/hook',
      urlCiphertext: null,
      enabled: true,
      secretCiphertext: 'v1:cipher',
      events: ['message.received', 'session.status'],
      retryAttempts: null,
      updatedAt: expect.any(Date),
    });
    await webhooks.save({ ...(await webhooks.find(account))!, retryAttempts: 10 });
    expect((await webhooks.find(account))?.retryAttempts).toBe(10);
    // The database refuses what the API refuses too.
    await expect(webhooks.save({ ...(await webhooks.find(account))!, retryAttempts: 11 })).rejects.toThrow();
  });

  it('replaces the one webhook of the account on a second save, moving updatedAt on', async () => {
    const account = await createAccount(db.dataSource);
    await webhooks.save({
      accountId: account,
      url: 'https://a.test/',
      urlCiphertext: null,
      enabled: true,
      secretCiphertext: 'one',
      events: ['message.received'],
    });
    const first = await webhooks.find(account);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await webhooks.save({
      accountId: account,
      url: 'https://b.test/',
      urlCiphertext: null,
      enabled: false,
      secretCiphertext: null,
      events: [],
    });

    const second = await webhooks.find(account);
    expect(second).toMatchObject({
      url: 'https://b.test/',
      enabled: false,
      secretCiphertext: null,
      events: [],
    });
    expect(second!.updatedAt.getTime()).toBeGreaterThan(first!.updatedAt.getTime());
    const [{ count }] = (await db.dataSource.query(
      `SELECT count(*)::int AS count FROM webhooks WHERE account_id = $1`,
      [account],
    )) as [{ count: number }];
    expect(count).toBe(1);
  });

  it("keeps accounts' webhooks apart", async () => {
    const alice = await createAccount(db.dataSource);
    const bob = await createAccount(db.dataSource);
    await webhooks.save({
      accountId: alice,
      url: 'https://alice.test/',
      urlCiphertext: null,
      enabled: true,
      secretCiphertext: 'a',
      events: ['message.received'],
    });
    expect(await webhooks.find(bob)).toBeNull();
    await webhooks.delete(bob);
    expect((await webhooks.find(alice))?.url).toBe('https://alice.test/');
  });

  it('deletes the webhook; deleting again or with a malformed id does nothing', async () => {
    const account = await createAccount(db.dataSource);
    await webhooks.save({
      accountId: account,
      url: 'https://x.test/',
      urlCiphertext: null,
      enabled: true,
      secretCiphertext: null,
      events: [],
    });
    await webhooks.delete(account);
    expect(await webhooks.find(account)).toBeNull();
    await expect(webhooks.delete(account)).resolves.toBeUndefined();
    await expect(webhooks.delete('not-a-uuid')).resolves.toBeUndefined();
  });

  it('goes away with its account', async () => {
    const account = await createAccount(db.dataSource);
    await webhooks.save({
      accountId: account,
      url: 'https://x.test/',
      urlCiphertext: null,
      enabled: true,
      secretCiphertext: null,
      events: [],
    });
    await db.dataSource.query(`DELETE FROM accounts WHERE id = $1`, [account]);
    expect(await webhooks.find(account)).toBeNull();
    expect(await new AccountRepository(db.dataSource).findById(account)).toBeNull();
  });

  it('stores a URL with a token only masked and sealed: no column of the row holds the token', async () => {
    const account = await createAccount(db.dataSource);
    const vault = new WebhookVault('a-secret-key-of-enough-length-0123456789');
    const full = 'https://hooks.example.com/in?token=tok_9f8e7d6c5b4a';
    await webhooks.save({
      accountId: account,
      ...vault.storableUrl(full),
      enabled: true,
      secretCiphertext: null,
      events: ['message.received'],
    });

    const [row] = (await db.dataSource.query(`SELECT * FROM webhooks WHERE account_id = $1`, [account])) as [
      Record<string, unknown>,
    ];
    expect(row['url']).toBe('https://hooks.example.com/in?token=****');
    expect(JSON.stringify(row)).not.toContain('tok_9f8e7d6c5b4a');
    expect(vault.openUrl((await webhooks.find(account))!)).toBe(full);
  });

  it('reads a row saved before URLs were sealed (no ciphertext): its URL is still the one posted to', async () => {
    const account = await createAccount(db.dataSource);
    await db.dataSource.query(
      `INSERT INTO webhooks (account_id, url, enabled, secret_ciphertext, updated_at) VALUES ($1, $2, true, 'c', now())`,
      [account, 'https://old.example.com/in?token=legacy'],
    );
    const stored = (await webhooks.find(account))!;
    expect(stored).toMatchObject({ url: 'https://old.example.com/in?token=legacy', urlCiphertext: null });
    expect(new WebhookVault('a-secret-key-of-enough-length-0123456789').openUrl(stored)).toBe(
      'https://old.example.com/in?token=legacy',
    );
  });
});
