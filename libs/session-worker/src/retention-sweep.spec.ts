import {
  createAccountFixture,
  ExpiredMessageRepository,
  openMigratedTestDatabase,
  ReceivedMessageRepository,
  SentMessageRepository,
  type AccountFixture,
  type MigratedTestDatabase,
  type SessionRef,
} from '@jumbe/persistence';
import { delay, eventually } from '@jumbe/testing';
import pino from 'pino';
import type { ExpiredMessageSweeper } from './ports/expired-message-sweeper';
import { RetentionSweep } from './retention-sweep';

/** The worker's retention sweep over the real repository on PostgreSQL. */
describe('RetentionSweep', () => {
  let db: MigratedTestDatabase;
  let account: AccountFixture;
  let sessions = 0;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    account = await createAccountFixture(db);
  });
  afterAll(() => db.close());

  /** An idle session (stopped: it writes nothing more) with `expired` sent messages 2 days old and one sent now. */
  async function idleSession(expired: number): Promise<SessionRef> {
    const ref = await account.session(`idle-${++sessions}`, { state: 'stopped' });
    const sent = new SentMessageRepository(db.dataSource);
    for (let i = 0; i < expired; i += 1) await sent.save(ref, `OLD${i}`, Buffer.from('sealed'), 'chat');
    await db.dataSource.query(
      `UPDATE sent_messages SET created_at = now() - interval '2 days' WHERE account_id = $1 AND session_id = $2`,
      [ref.accountId, ref.sessionId],
    );
    await sent.save(ref, 'NEW', Buffer.from('sealed'), 'chat');
    await new ReceivedMessageRepository(db.dataSource).save(ref, 'QUOTABLE', Buffer.from('sealed'));
    await db.dataSource.query(
      `UPDATE received_messages SET created_at = now() - interval '2 days' WHERE account_id = $1 AND session_id = $2`,
      [ref.accountId, ref.sessionId],
    );
    return ref;
  }
  const keptOf = async (table: string, ref: SessionRef): Promise<string[]> =>
    (
      (await db.dataSource.query(
        `SELECT message_id FROM ${table} WHERE account_id = $1 AND session_id = $2 ORDER BY message_id`,
        [ref.accountId, ref.sessionId],
      )) as { message_id: string }[]
    ).map((row) => row.message_id);

  /** The real repository, its batches counted. */
  function counted(): { port: ExpiredMessageSweeper; batches: number[] } {
    const repository = new ExpiredMessageRepository(db.dataSource);
    const batches: number[] = [];
    return {
      batches,
      port: {
        deleteExpiredBatch: async (limit) => {
          const deleted = await repository.deleteExpiredBatch(limit);
          batches.push(deleted.sentMessages);
          return deleted;
        },
      },
    };
  }

  it("deletes an idle session's expired content in bounded batches until none is left, and keeps the unexpired", async () => {
    const ref = await idleSession(5);
    const { port, batches } = counted();
    const sweep = new RetentionSweep(port, logger, { everyMs: 60_000, batchSize: 2, maxBatches: 10 });

    expect(await sweep.sweep()).toEqual({
      sentMessages: 5,
      receivedMessages: 0,
      inboundMedia: 0,
      idempotencyRecords: 0,
    });
    expect(batches).toEqual([2, 2, 1]);
    expect(await keptOf('sent_messages', ref)).toEqual(['NEW']);
    // Two days old is within the 7 days a received message is kept for quotes.
    expect(await keptOf('received_messages', ref)).toEqual(['QUOTABLE']);
  });

  it('stops a sweep after maxBatches statements: a large backlog goes over several sweeps', async () => {
    const ref = await idleSession(5);
    const { port, batches } = counted();
    const sweep = new RetentionSweep(port, logger, { everyMs: 60_000, batchSize: 2, maxBatches: 2 });

    expect((await sweep.sweep()).sentMessages).toBe(4);
    expect(await keptOf('sent_messages', ref)).toHaveLength(2);
    expect((await sweep.sweep()).sentMessages).toBe(1);
    expect(batches).toEqual([2, 2, 1]);
    expect(await keptOf('sent_messages', ref)).toEqual(['NEW']);
  });

  it('sweeps by itself once started, and not after it is stopped', async () => {
    const ref = await idleSession(3);
    const { port, batches } = counted();
    const sweep = new RetentionSweep(port, logger, { everyMs: 50, batchSize: 1_000, maxBatches: 10 });
    sweep.start();
    await eventually(
      'expired rows swept',
      async () => (await keptOf('sent_messages', ref)).length === 1,
      5_000,
    );
    await eventually('a second sweep', async () => batches.length >= 2, 5_000);
    await sweep.stop();
    const sweeps = batches.length;
    await delay(300);
    expect(batches).toHaveLength(sweeps);
  });
});
