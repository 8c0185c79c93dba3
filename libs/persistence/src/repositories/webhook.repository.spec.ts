import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { AccountRepository } from './account.repository';
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
      enabled: true,
      secretCiphertext: 'v1:cipher',
      events: ['message.received', 'session.status'],
    });
    expect(await webhooks.find(account)).toEqual({
      accountId: account,
      url: 'https://example.test/hook',
      enabled: true,
      secretCiphertext: 'v1:cipher',
      events: ['message.received', 'session.status'],
      updatedAt: expect.any(Date),
    });
  });

  it('replaces the one webhook of the account on a second save, moving updatedAt on', async () => {
    const account = await createAccount(db.dataSource);
    await webhooks.save({
      accountId: account,
      url: 'https://a.test/',
      enabled: true,
      secretCiphertext: 'one',
      events: ['message.received'],
    });
    const first = await webhooks.find(account);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await webhooks.save({
      accountId: account,
      url: 'https://b.test/',
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
      enabled: true,
      secretCiphertext: null,
      events: [],
    });
    await db.dataSource.query(`DELETE FROM accounts WHERE id = $1`, [account]);
    expect(await webhooks.find(account)).toBeNull();
    expect(await new AccountRepository(db.dataSource).findById(account)).toBeNull();
  });
});
