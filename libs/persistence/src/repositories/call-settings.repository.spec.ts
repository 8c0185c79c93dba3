import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { CallSettingsRepository } from './call-settings.repository';
import { createAccount } from './test-support/fixtures';

describe('CallSettingsRepository', () => {
  let db: MigratedTestDatabase;
  let settings: CallSettingsRepository;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    settings = new CallSettingsRepository(db.dataSource);
  });
  afterAll(() => db.close());

  it('keeps one setting per account and session id, replaced by the next save', async () => {
    const account = await createAccount(db.dataSource);
    const other = await createAccount(db.dataSource);
    const shop = { accountId: account, sessionId: 'shop' };
    expect(await settings.find(shop)).toBeNull();

    await settings.save(shop, { rejectCalls: true, reply: 'Text us please' });
    expect(await settings.find(shop)).toEqual({ rejectCalls: true, reply: 'Text us please' });
    await settings.save(shop, { rejectCalls: false, reply: null });
    expect(await settings.find(shop)).toEqual({ rejectCalls: false, reply: null });

    expect(await settings.find({ accountId: account, sessionId: 'default' })).toBeNull();
    expect(await settings.find({ accountId: other, sessionId: 'shop' })).toBeNull();
    expect(await settings.find({ accountId: 'not-a-uuid', sessionId: 'shop' })).toBeNull();
  });

  it('goes with the account', async () => {
    const account = await createAccount(db.dataSource);
    await settings.save({ accountId: account, sessionId: 'shop' }, { rejectCalls: true, reply: null });
    await db.dataSource.query(`DELETE FROM accounts WHERE id = $1`, [account]);
    expect(await settings.find({ accountId: account, sessionId: 'shop' })).toBeNull();
  });
});
