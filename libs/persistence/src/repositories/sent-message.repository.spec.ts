import { createAccountFixture, type AccountFixture } from '../testing/account-fixture';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { sessionRowCount } from '../testing/session-rows';
import { ExpiredMessageRepository, MESSAGE_RETENTION } from './expired-message.repository';
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
    const sent = new SentMessageRepository(db.dataSource, { ttlMs: 200 });
    const ref = await account.session('short-lived');
    await sent.save(ref, 'old', Buffer.from('x'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await sent.find(ref, 'old')).toBeNull();
    await sent.prune(ref);
    expect(await sessionRowCount(db, 'sent_messages', ref)).toBe(0);
  });

  it('keeps a message saved with keepUntil (a poll, for its votes) past the time to live, until then', async () => {
    const sent = new SentMessageRepository(db.dataSource, { ttlMs: 200 });
    const ref = await account.session('polls');
    await sent.save(
      ref,
      'poll',
      Buffer.from('poll'),
      '254712345678@s.whatsapp.net',
      new Date(Date.now() + 3_600_000),
    );
    await sent.save(ref, 'ended', Buffer.from('ended'), undefined, new Date(Date.now() - 1_000));
    await sent.save(ref, 'plain', Buffer.from('plain'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await sent.prune(ref);
    expect(await sent.find(ref, 'poll')).toEqual(Buffer.from('poll'));
    expect(await sent.findWithChat(ref, 'poll')).toEqual({
      value: Buffer.from('poll'),
      chat: '254712345678@s.whatsapp.net',
    });
    expect(await sent.find(ref, 'ended')).toBeNull();
    expect(await sent.find(ref, 'plain')).toBeNull();
    expect(await sessionRowCount(db, 'sent_messages', ref)).toBe(1);
    // The retention sweep (idle sessions) keeps it too.
    const swept = new ExpiredMessageRepository(db.dataSource, { ...MESSAGE_RETENTION, sentMessages: 200 });
    await swept.deleteExpiredBatch(1_000);
    expect(await sent.find(ref, 'poll')).toEqual(Buffer.from('poll'));
  });

  // Issue 28: the newest 1,000 only, so a number sending more a day could not answer a late retry.
  it('keeps every message of its time window, however many the session sent: the first of 1,500 is found after pruning', async () => {
    const sent = new SentMessageRepository(db.dataSource);
    const ref = await account.session('busy');
    const ids = Array.from({ length: 1_500 }, (_, n) => `3EB0BUSY${String(n).padStart(5, '0')}`);
    for (const id of ids) await sent.save(ref, id, Buffer.from(id));
    await sent.prune(ref);
    expect(await sent.find(ref, ids[0]!)).toEqual(Buffer.from(ids[0]!));
    expect(await sessionRowCount(db, 'sent_messages', ref)).toBe(1_500);
  }, 60_000);
});
