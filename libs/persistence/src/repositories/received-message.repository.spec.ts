import { createAccountFixture, type AccountFixture } from '../testing/account-fixture';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { sessionRowCount } from '../testing/session-rows';
import { InboundOutboxRepository } from './inbound-outbox.repository';
import { ReceivedMessageRepository } from './received-message.repository';
import { SentMessageRepository } from './sent-message.repository';
import type { SessionRef } from './session.repository';

/** What a reply needs to quote: received messages (kept with the inbound outbox) and sent messages' chats. */
describe('ReceivedMessageRepository', () => {
  let db: MigratedTestDatabase;
  let account: AccountFixture;
  let otherAccount: AccountFixture;

  const count = (table: string, ref: SessionRef) => sessionRowCount(db, table, ref);

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    account = await createAccountFixture(db);
    otherAccount = await account.otherAccount();
  });
  afterAll(() => db.close());

  it('is written by the outbox in the same statement, once per id, and found per session only', async () => {
    const received = new ReceivedMessageRepository(db.dataSource);
    const outbox = new InboundOutboxRepository(db.dataSource, received);
    const sales = await account.session('sales');
    const support = await account.session('support');
    const elsewhere = await otherAccount.session('sales');
    await outbox.add(sales, 'IN1', Buffer.from('outbox'), Buffer.from('quote'));
    // WhatsApp delivers again: the first copy stays.
    await outbox.add(sales, 'IN1', Buffer.from('outbox again'), Buffer.from('quote again'));
    await outbox.add(sales, 'IN2', Buffer.from('no quote'));

    expect((await outbox.oldest(sales, 10)).map((entry) => entry.messageId)).toEqual(['IN1', 'IN2']);
    expect(await received.find(sales, 'IN1')).toEqual(Buffer.from('quote'));
    expect(await received.find(sales, 'IN2')).toBeNull();
    expect(await received.find(support, 'IN1')).toBeNull();
    expect(await received.find(elsewhere, 'IN1')).toBeNull();
    // Draining the outbox keeps the quotable copy.
    await outbox.remove(sales, ['IN1']);
    expect(await received.find(sales, 'IN1')).toEqual(Buffer.from('quote'));
  });

  it('writes neither row when one fails (no session: the foreign key refuses both)', async () => {
    const outbox = new InboundOutboxRepository(db.dataSource);
    const ghost = { accountId: account.accountId, sessionId: 'never-started' };
    await expect(outbox.add(ghost, 'IN1', Buffer.from('x'), Buffer.from('q'))).rejects.toThrow();
    expect(await count('inbound_outbox', ghost)).toBe(0);
    expect(await count('received_messages', ghost)).toBe(0);
  });

  it('forgets messages past their time to live, and keeps at most the newest per session', async () => {
    const shortLived = new ReceivedMessageRepository(db.dataSource, { ttlMs: 200, perSession: 10 });
    const ref = await account.session('short-lived');
    await shortLived.save(ref, 'old', Buffer.from('x'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await shortLived.find(ref, 'old')).toBeNull();
    await shortLived.prune(ref);
    expect(await count('received_messages', ref)).toBe(0);

    const bounded = new ReceivedMessageRepository(db.dataSource, { ttlMs: 60_000, perSession: 3 });
    const busy = await account.session('bounded');
    for (const id of ['m1', 'm2', 'm3', 'm4', 'm5']) {
      await bounded.save(busy, id, Buffer.from(id));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await bounded.prune(busy);
    const found = await Promise.all(['m1', 'm2', 'm3', 'm4', 'm5'].map((id) => bounded.find(busy, id)));
    expect(found.map((value) => value?.toString() ?? null)).toEqual([null, null, 'm3', 'm4', 'm5']);
  });

  it('prunes by itself as messages arrive through the outbox', async () => {
    const received = new ReceivedMessageRepository(db.dataSource, { ttlMs: 60_000, perSession: 10 });
    const outbox = new InboundOutboxRepository(db.dataSource, received);
    const ref = await account.session('self-pruning');
    for (let i = 0; i < 50; i++) await outbox.add(ref, `m${i}`, Buffer.from('x'), Buffer.from('q'));
    expect(await count('received_messages', ref)).toBeLessThanOrEqual(10);
    expect(await received.find(ref, 'm49')).toEqual(Buffer.from('q'));
  });

  it('keeps the chat a message was sent to beside it, for quotes', async () => {
    const sent = new SentMessageRepository(db.dataSource);
    const ref = await account.session('sent-chats');
    await sent.save(ref, 'OUT1', Buffer.from('sealed'), '254711111111@s.whatsapp.net');
    await sent.save(ref, 'OUT2', Buffer.from('sealed'));
    expect(await sent.findWithChat(ref, 'OUT1')).toEqual({
      value: Buffer.from('sealed'),
      chat: '254711111111@s.whatsapp.net',
    });
    expect(await sent.findWithChat(ref, 'OUT2')).toEqual({ value: Buffer.from('sealed'), chat: null });
    expect(await sent.findWithChat(ref, 'unknown')).toBeNull();
    expect(
      await sent.findWithChat({ accountId: otherAccount.accountId, sessionId: 'sent-chats' }, 'OUT1'),
    ).toBeNull();
  });
});
