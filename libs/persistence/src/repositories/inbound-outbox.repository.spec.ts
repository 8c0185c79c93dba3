import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { AccountRepository } from './account.repository';
import { InboundOutboxRepository } from './inbound-outbox.repository';
import { PlanRepository } from './plan.repository';
import type { SessionRef } from './session.repository';

describe('InboundOutboxRepository', () => {
  let db: MigratedTestDatabase;
  let accountId: string;

  const session = async (sessionId: string): Promise<SessionRef> => {
    await db.dataSource.query(
      `INSERT INTO sessions (account_id, session_id, shard, state, owner_token) VALUES ($1, $2, 0, 'connected', 1)`,
      [accountId, sessionId],
    );
    return { accountId, sessionId };
  };

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    const plan = await new PlanRepository(db.dataSource).create({
      name: 'p',
      monthlyApiHits: 10,
      maxSessions: 5,
    });
    accountId = (await new AccountRepository(db.dataSource).create({ name: 'A', planId: plan.id })).id;
  });
  afterAll(() => db.close());

  it('keeps each message once, in arrival order, per session, until removed', async () => {
    const outbox = new InboundOutboxRepository(db.dataSource);
    const sales = await session('sales');
    const support = await session('support');
    for (const id of ['m1', 'm2', 'm1', 'm3']) await outbox.add(sales, id, Buffer.from(id));
    await outbox.add(support, 'other', Buffer.from('other'));
    expect((await outbox.oldest(sales, 10)).map((entry) => entry.messageId)).toEqual(['m1', 'm2', 'm3']);
    expect((await outbox.oldest(sales, 2)).map((entry) => entry.value.toString())).toEqual(['m1', 'm2']);
    await outbox.remove(sales, 'm1');
    expect((await outbox.oldest(sales, 10)).map((entry) => entry.messageId)).toEqual(['m2', 'm3']);
    expect((await outbox.oldest(support, 10)).map((entry) => entry.messageId)).toEqual(['other']);
  });
});
