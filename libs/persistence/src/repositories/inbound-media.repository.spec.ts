import { createAccountFixture, type AccountFixture } from '../testing/account-fixture';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { sessionRowCount } from '../testing/session-rows';
import { InboundMediaRepository } from './inbound-media.repository';
import type { SessionRef } from './session.repository';

describe('InboundMediaRepository', () => {
  let db: MigratedTestDatabase;
  let account: AccountFixture;
  let otherAccount: AccountFixture;

  const count = (ref: SessionRef) => sessionRowCount(db, 'inbound_media', ref);

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    account = await createAccountFixture(db);
    otherAccount = await account.otherAccount();
  });
  afterAll(() => db.close());

  it("keeps a session's media descriptors apart from every other session and account", async () => {
    const media = new InboundMediaRepository(db.dataSource);
    const sales = await account.session('sales');
    await media.save(sales, '3A01', Buffer.from('sealed'));
    expect(await media.find(sales, '3A01')).toEqual({ expired: false, value: Buffer.from('sealed') });
    expect(await media.find(await account.session('support'), '3A01')).toBeNull();
    expect(await media.find(await otherAccount.session('sales'), '3A01')).toBeNull();
    expect(await media.find(sales, 'unknown')).toBeNull();
  });

  it('keeps the first arrival when a message is delivered again (retention counts from it)', async () => {
    const media = new InboundMediaRepository(db.dataSource);
    const ref = await account.session('twice');
    await media.save(ref, '3A02', Buffer.from('first'));
    await media.save(ref, '3A02', Buffer.from('second'));
    expect(await media.find(ref, '3A02')).toEqual({ expired: false, value: Buffer.from('first') });
  });

  it('answers expired past the time to live, then forgets the row', async () => {
    const media = new InboundMediaRepository(db.dataSource, { ttlMs: 200, perSession: 10 });
    const ref = await account.session('short-lived');
    await media.save(ref, 'old', Buffer.from('x'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await media.find(ref, 'old')).toEqual({ expired: true });
    await media.prune(ref);
    // Kept expired for another time to live, so a late request hears "expired", not "unknown".
    expect(await count(ref)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await media.prune(ref);
    expect(await count(ref)).toBe(0);
  });

  it('keeps at most the newest descriptors of a session', async () => {
    const media = new InboundMediaRepository(db.dataSource, { ttlMs: 60_000, perSession: 2 });
    const ref = await account.session('bounded');
    for (const id of ['m1', 'm2', 'm3']) {
      await media.save(ref, id, Buffer.from(id));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await media.prune(ref);
    const found = await Promise.all(['m1', 'm2', 'm3'].map((id) => media.find(ref, id)));
    expect(found.map((entry) => (entry && !entry.expired ? entry.value.toString() : null))).toEqual([
      null,
      'm2',
      'm3',
    ]);
  });
});
