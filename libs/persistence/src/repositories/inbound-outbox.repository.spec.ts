import { createAccountFixture, type AccountFixture } from '../testing/account-fixture';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { InboundOutboxRepository } from './inbound-outbox.repository';

describe('InboundOutboxRepository', () => {
  let db: MigratedTestDatabase;
  let account: AccountFixture;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    account = await createAccountFixture(db);
  });
  afterAll(() => db.close());

  it('keeps each message once, in arrival order, per session, until removed', async () => {
    const outbox = new InboundOutboxRepository(db.dataSource);
    const sales = await account.session('sales');
    const support = await account.session('support');
    for (const id of ['m1', 'm2', 'm1', 'm3']) await outbox.add(sales, id, Buffer.from(id));
    await outbox.add(support, 'other', Buffer.from('other'));
    expect((await outbox.oldest(sales, 10)).map((entry) => entry.messageId)).toEqual(['m1', 'm2', 'm3']);
    expect((await outbox.oldest(sales, 2)).map((entry) => entry.value.toString())).toEqual(['m1', 'm2']);
    await outbox.remove(sales, ['m1']);
    expect((await outbox.oldest(sales, 10)).map((entry) => entry.messageId)).toEqual(['m2', 'm3']);
    expect((await outbox.oldest(support, 10)).map((entry) => entry.messageId)).toEqual(['other']);
  });

  it('removes a delivered batch in one call, of that session only', async () => {
    const outbox = new InboundOutboxRepository(db.dataSource);
    const sales = await account.session('sales-batch');
    const support = await account.session('support-batch');
    for (const id of ['b1', 'b2', 'b3']) await outbox.add(sales, id, Buffer.from(id));
    await outbox.add(support, 'b1', Buffer.from('theirs'));
    await outbox.remove(sales, ['b1', 'b2']);
    await outbox.remove(sales, []);
    expect((await outbox.oldest(sales, 10)).map((entry) => entry.messageId)).toEqual(['b3']);
    expect((await outbox.oldest(support, 10)).map((entry) => entry.messageId)).toEqual(['b1']);
  });
  it('reads in arrival order, not the order stored; unkeyed rows (stored before keys) first', async () => {
    const outbox = new InboundOutboxRepository(db.dataSource);
    const sales = await account.session('sales-arrival');
    const socket = 1_764_000_000_000;
    // A live message stored before the backlog message that arrived ahead of it.
    await outbox.add(sales, 'live', Buffer.from('live'), undefined, { socket, position: 2 ** 40 });
    await outbox.add(sales, 'backlog', Buffer.from('backlog'), Buffer.from('q'), { socket, position: 3 });
    await outbox.add(sales, 'next socket', Buffer.from('n'), undefined, { socket: socket + 1, position: 0 });
    await outbox.add(sales, 'unkeyed', Buffer.from('u'));
    const read = await outbox.oldest(sales, 10);
    expect(read.map((entry) => entry.messageId)).toEqual(['unkeyed', 'backlog', 'live', 'next socket']);
    expect(read[2].arrival).toEqual({ socket, position: 2 ** 40 });
  });

  it("reads an earlier socket's pending arrival among the current socket's backlog by its second, and settles it there", async () => {
    // Issue 28 (chaos seed 5): B arrived live on socket 1 before its backlog, which never came (the
    // socket ended); socket 2's backlog has A (sent before B) and C (sent after socket 1 ended).
    const outbox = new InboundOutboxRepository(db.dataSource);
    const sales = await account.session('sales-pending');
    const pending = { from: 2 ** 48, until: 2 ** 50, perSecond: 2 ** 16 };
    const second = 1_900_000_000;
    const [socket1, socket2, socket3] = [1_764_000_000_000, 1_764_000_060_000, 1_764_000_120_000];
    await outbox.add(sales, 'B', Buffer.from('B'), undefined, {
      socket: socket1,
      position: pending.from + (second + 6) * pending.perSecond + 0,
    });
    await outbox.add(sales, 'C', Buffer.from('C'), undefined, {
      socket: socket2,
      position: (second + 30) * pending.perSecond + 1,
    });
    await outbox.add(sales, 'A', Buffer.from('A'), undefined, {
      socket: socket2,
      position: second * pending.perSecond,
    });
    await outbox.add(sales, 'D', Buffer.from('D'), undefined, { socket: socket2, position: 2 ** 50 + 2 });
    const ids = async (carriedTo?: number) =>
      (await outbox.oldest(sales, 10, carriedTo, pending)).map((entry) => entry.messageId);
    expect(await ids()).toEqual(['B', 'A', 'C', 'D']);
    expect(await ids(socket2)).toEqual(['A', 'B', 'C', 'D']);
    expect(await ids(socket3)).toEqual(['A', 'C', 'D', 'B']);
    await outbox.settlePending(sales, socket2, pending);
    expect(await ids(socket3)).toEqual(['A', 'B', 'C', 'D']);
    const b = (await outbox.oldest(sales, 10)).find((entry) => entry.messageId === 'B');
    expect(b?.arrival).toEqual({
      socket: socket2,
      position: (second + 6) * pending.perSecond + pending.perSecond - 1,
    });
  });

  it("reads the current socket's own pending arrival among its backlog by its second too, and settles it", async () => {
    // Issue 28 (chaos seed 57): L, taken by the server at second + 5, came live on socket 2 before
    // that socket's backlog had C (sent at second + 30); A is in the backlog before it.
    const outbox = new InboundOutboxRepository(db.dataSource);
    const sales = await account.session('sales-own-pending');
    const pending = { from: 2 ** 48, until: 2 ** 50, perSecond: 2 ** 16 };
    const second = 1_900_000_000;
    const [socket2, socket3] = [1_764_000_060_000, 1_764_000_120_000];
    const at = (position: number) => ({ socket: socket2, position });
    await outbox.add(sales, 'A', Buffer.from('A'), undefined, at(second * pending.perSecond));
    await outbox.add(
      sales,
      'L',
      Buffer.from('L'),
      undefined,
      at(pending.from + (second + 5) * pending.perSecond + 1),
    );
    await outbox.add(sales, 'C', Buffer.from('C'), undefined, at((second + 30) * pending.perSecond + 2));
    const ids = async (carriedTo?: number) =>
      (await outbox.oldest(sales, 10, carriedTo, pending)).map((entry) => entry.messageId);
    expect(await ids(socket2)).toEqual(['A', 'L', 'C']);
    await outbox.settlePending(sales, socket2, pending);
    // Settled on its own socket: a later socket reads it there, not among its own backlog.
    expect(await ids(socket3)).toEqual(['A', 'L', 'C']);
    expect(await ids()).toEqual(['A', 'L', 'C']);
  });

  it('holds the place of a message asked for again: the copy sent back takes it, whoever stores it', async () => {
    // Issue 28 (the fault schedule's seed 8): the copy came back on a later socket.
    const outbox = new InboundOutboxRepository(db.dataSource);
    const sales = await account.session('sales-awaited');
    const [socket1, socket2] = [1_764_000_000_000, 1_764_000_060_000];
    const until = 1_764_000_010_000;
    await outbox.awaitResend(
      sales,
      'asked',
      Buffer.from('placeholder'),
      { socket: socket1, position: 4 },
      until,
    );
    await outbox.add(sales, 'next', Buffer.from('next'), undefined, { socket: socket1, position: 5 });
    // A second retry of it changes nothing: the first deadline stands.
    await outbox.awaitResend(
      sales,
      'asked',
      Buffer.from('again'),
      { socket: socket1, position: 9 },
      until + 5,
    );
    const held = await outbox.oldest(sales, 10);
    expect(held.map((entry) => [entry.messageId, entry.resendAwaitedUntil])).toEqual([
      ['asked', until],
      ['next', undefined],
    ]);
    expect(held[0].value.toString()).toBe('placeholder');

    await outbox.add(sales, 'asked', Buffer.from('the copy'), Buffer.from('q'), {
      socket: socket2,
      position: 0,
    });
    const taken = await outbox.oldest(sales, 10);
    expect(taken[0]).toEqual({
      messageId: 'asked',
      value: Buffer.from('the copy'),
      arrival: { socket: socket1, position: 4 },
    });
    // Forgetting places held no longer removes a message that took its place.
    await outbox.forgetAwaited(sales, ['asked', 'next']);
    expect((await outbox.oldest(sales, 10)).map((entry) => entry.messageId)).toEqual(['asked', 'next']);
  });

  it('forgets a place held for a message that never came back, and keeps a message stored once', async () => {
    const outbox = new InboundOutboxRepository(db.dataSource);
    const sales = await account.session('sales-never');
    await outbox.awaitResend(sales, 'gone', Buffer.from('p'), { socket: 1, position: 1 }, 5);
    await outbox.add(sales, 'kept', Buffer.from('kept'), undefined, { socket: 1, position: 2 });
    // A place held for a message stored already changes nothing.
    await outbox.awaitResend(sales, 'kept', Buffer.from('p'), { socket: 1, position: 0 }, 5);
    await outbox.forgetAwaited(sales, ['gone']);
    expect(await outbox.oldest(sales, 10)).toEqual([
      { messageId: 'kept', value: Buffer.from('kept'), arrival: { socket: 1, position: 2 } },
    ]);
  });
});
