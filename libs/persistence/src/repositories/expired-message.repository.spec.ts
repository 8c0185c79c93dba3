import { type AccountFixture, createAccountFixture } from '../testing/account-fixture';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { ExpiredMessageRepository } from './expired-message.repository';
import { IdempotencyRepository } from './idempotency.repository';
import { InboundMediaRepository } from './inbound-media.repository';
import { ReceivedMessageRepository } from './received-message.repository';
import { SentMessageRepository } from './sent-message.repository';
import type { SessionRef } from './session.repository';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const TABLES = ['sent_messages', 'received_messages', 'inbound_media'] as const;

/** The retention sweep on a real PostgreSQL: expired content of every session goes, nothing else. */
describe('ExpiredMessageRepository', () => {
  let db: MigratedTestDatabase;
  let account: AccountFixture;
  let otherAccount: AccountFixture;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    account = await createAccountFixture(db);
    otherAccount = await account.otherAccount();
  });
  afterAll(() => db.close());

  /** Stores one message of each kind for the session, `ageMs` old. */
  async function keep(ref: SessionRef, messageId: string, ageMs: number): Promise<void> {
    await new SentMessageRepository(db.dataSource).save(ref, messageId, Buffer.from('sent'), 'chat');
    await new ReceivedMessageRepository(db.dataSource).save(ref, messageId, Buffer.from('received'));
    await new InboundMediaRepository(db.dataSource).save(ref, messageId, Buffer.from('media'));
    for (const table of TABLES) {
      await db.dataSource.query(
        `UPDATE ${table} SET created_at = now() - make_interval(secs => $4)
          WHERE account_id = $1 AND session_id = $2 AND message_id = $3`,
        [ref.accountId, ref.sessionId, messageId, ageMs / 1000],
      );
    }
  }
  const kept = async (table: string, ref: SessionRef): Promise<string[]> =>
    (
      (await db.dataSource.query(
        `SELECT message_id FROM ${table} WHERE account_id = $1 AND session_id = $2 ORDER BY message_id`,
        [ref.accountId, ref.sessionId],
      )) as { message_id: string }[]
    ).map((row) => row.message_id);

  it("deletes every session's expired rows, each table after its own retention, and keeps the rest", async () => {
    const idle = await account.session('idle', { state: 'stopped' });
    const other = await otherAccount.session('busy');
    await keep(idle, 'A-hour', HOUR);
    await keep(idle, 'B-two-days', 2 * DAY);
    await keep(idle, 'C-ten-days', 10 * DAY);
    await keep(idle, 'D-three-weeks', 21 * DAY);
    await keep(other, 'E-hour', HOUR);
    await keep(other, 'F-two-days', 2 * DAY);

    const sweeper = new ExpiredMessageRepository(db.dataSource);
    expect(await sweeper.deleteExpiredBatch(1_000)).toEqual({
      sentMessages: 4, // older than 24 h
      receivedMessages: 2, // older than 7 days
      inboundMedia: 1, // older than 14 days: a descriptor between 7 and 14 days old still answers 410
      idempotencyRecords: 0,
    });

    expect(await kept('sent_messages', idle)).toEqual(['A-hour']);
    expect(await kept('received_messages', idle)).toEqual(['A-hour', 'B-two-days']);
    expect(await kept('inbound_media', idle)).toEqual(['A-hour', 'B-two-days', 'C-ten-days']);
    expect(await kept('sent_messages', other)).toEqual(['E-hour']);
    expect(await kept('received_messages', other)).toEqual(['E-hour', 'F-two-days']);
    expect(await kept('inbound_media', other)).toEqual(['E-hour', 'F-two-days']);
    expect(await sweeper.deleteExpiredBatch(1_000)).toEqual({
      sentMessages: 0,
      receivedMessages: 0,
      inboundMedia: 0,
      idempotencyRecords: 0,
    });
  });

  it('deletes idempotency records past their 24 h window, of every account, and keeps the recent ones', async () => {
    const idempotency = new IdempotencyRepository(db.dataSource);
    for (const [owner, key] of [
      [account, 'old-a'],
      [account, 'new-a'],
      [otherAccount, 'old-b'],
    ] as const) {
      expect(await idempotency.claim(owner.accountId, key, 'hash')).toEqual({ kind: 'new' });
      await idempotency.complete(owner.accountId, key, 200, { data: { id: key } });
    }
    await db.dataSource.query(
      `UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE key LIKE 'old-%'`,
    );

    expect(
      (await new ExpiredMessageRepository(db.dataSource).deleteExpiredBatch(1_000)).idempotencyRecords,
    ).toBe(2);
    const left = (await db.dataSource.query(
      `SELECT key FROM idempotency_records WHERE account_id IN ($1, $2) ORDER BY key`,
      [account.accountId, otherAccount.accountId],
    )) as { key: string }[];
    expect(left.map((row) => row.key)).toEqual(['new-a']);
    // The answer of a recent key still replays.
    expect(await idempotency.claim(account.accountId, 'new-a', 'hash')).toMatchObject({ kind: 'replay' });
  });

  it('deletes at most `limit` rows of each table per batch', async () => {
    const session = await account.session('backlog');
    for (let i = 0; i < 5; i += 1) await keep(session, `OLD${i}`, 30 * DAY);
    const sweeper = new ExpiredMessageRepository(db.dataSource);

    const batches = [];
    for (let i = 0; i < 3; i += 1) batches.push(await sweeper.deleteExpiredBatch(2));
    expect(batches.map((batch) => batch.sentMessages)).toEqual([2, 2, 1]);
    expect(batches.map((batch) => batch.receivedMessages)).toEqual([2, 2, 1]);
    expect(batches.map((batch) => batch.inboundMedia)).toEqual([2, 2, 1]);
    for (const table of TABLES) expect(await kept(table, session)).toEqual([]);
  });

  it('finds expired rows by their age index, not by reading the whole table', async () => {
    const runner = db.dataSource.createQueryRunner();
    try {
      // The tables are nearly empty here, where a scan is cheaper: the plan is asked with scans off.
      await runner.query('SET enable_seqscan = off');
      for (const table of TABLES) {
        const plan = (await runner.query(
          `EXPLAIN SELECT message_id FROM ${table} WHERE created_at <= now() - interval '1 day' LIMIT 1000`,
        )) as { 'QUERY PLAN': string }[];
        expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain(`${table}_created_at_idx`);
      }
    } finally {
      await runner.query('RESET enable_seqscan');
      await runner.release();
    }
  });
});
