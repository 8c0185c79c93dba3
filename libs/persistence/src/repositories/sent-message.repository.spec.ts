import { createAccountFixture, type AccountFixture } from '../testing/account-fixture';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { sessionRowCount } from '../testing/session-rows';
import { SentMessageRepository } from './sent-message.repository';

describe('SentMessageRepository', () => {
  let db: MigratedTestDatabase;
  let account: AccountFixture;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    account = await createAccountFixture(db);
  });
  afterAll(() => db.close());

  it('keeps what a session sent, per session, and answers unknown ids with null', async () => {
    const sent = new SentMessageRepository(db.dataSource);
    const sales = await account.session('sales');
    const support = await account.session('support');
    await sent.save(sales, '3EB0AAAA', Buffer.from('sealed'));
    expect(await sent.find(sales, '3EB0AAAA')).toEqual(Buffer.from('sealed'));
    expect(await sent.find(support, '3EB0AAAA')).toBeNull();
    expect(await sent.find(sales, 'unknown')).toBeNull();
  });

  it('tells when a kept message was sent (edits and deletes are limited in time), null when unknown', async () => {
    const sent = new SentMessageRepository(db.dataSource);
    const ref = await account.session('timed');
    const before = Date.now();
    await sent.save(ref, '3EB0TIME', Buffer.from('sealed'));
    const at = await sent.sentAt(ref, '3EB0TIME');
    expect(at?.getTime()).toBeGreaterThanOrEqual(before - 5_000);
    expect(at?.getTime()).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(await sent.sentAt(ref, 'unknown')).toBeNull();
    expect(await sent.sentAt(await account.session('other'), '3EB0TIME')).toBeNull();
  });

  it('forgets messages past their time to live', async () => {
    const sent = new SentMessageRepository(db.dataSource, { ttlMs: 200, perSession: 10 });
    const ref = await account.session('short-lived');
    await sent.save(ref, 'old', Buffer.from('x'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await sent.find(ref, 'old')).toBeNull();
    await sent.prune(ref);
    expect(await sessionRowCount(db, 'sent_messages', ref)).toBe(0);
  });

  it('keeps at most the newest messages of a session', async () => {
    const sent = new SentMessageRepository(db.dataSource, { ttlMs: 60_000, perSession: 3 });
    const ref = await account.session('bounded');
    for (const id of ['m1', 'm2', 'm3', 'm4', 'm5']) {
      await sent.save(ref, id, Buffer.from(id));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await sent.prune(ref);
    const found = await Promise.all(['m1', 'm2', 'm3', 'm4', 'm5'].map((id) => sent.find(ref, id)));
    expect(found.map((value) => value?.toString() ?? null)).toEqual([null, null, 'm3', 'm4', 'm5']);
  });
});
