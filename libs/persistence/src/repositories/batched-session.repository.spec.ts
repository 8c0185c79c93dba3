import type { Repository } from 'typeorm';
import { SessionEntity } from '../entities/session.entity';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { AccountRepository } from './account.repository';
import { BatchedSessionRepository } from './batched-session.repository';
import { PlanRepository } from './plan.repository';

describe('BatchedSessionRepository', () => {
  let db: MigratedTestDatabase;
  let rows: Repository<SessionEntity>;
  let accountId: string;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    rows = db.dataSource.getRepository(SessionEntity);
    const plan = await new PlanRepository(db.dataSource).create({
      name: 'p',
      monthlyApiHits: 10,
      maxSessions: 500,
    });
    accountId = (await new AccountRepository(db.dataSource).create({ name: 'Acme', planId: plan.id })).id;
  });
  afterAll(() => db.close());

  it('writes many sessions in a few statements, each with its own fence and answer', async () => {
    const sessionIds = Array.from({ length: 200 }, (_, i) => `s${i}`);
    await rows.insert(
      sessionIds.map((sessionId, i) => ({
        accountId,
        sessionId,
        shard: 3,
        state: 'connecting' as const,
        phoneNumber: null,
        reason: null,
        ownerToken: i === 7 ? 9 : 4, // s7 already belongs to a newer owner
      })),
    );
    await rows.update({ accountId, sessionId: 's9' }, { phoneNumber: '255700009999' });
    const batched = new BatchedSessionRepository(db.dataSource);
    let statements = 0;
    const query = db.dataSource.query.bind(db.dataSource);
    db.dataSource.query = ((...args: Parameters<typeof query>) => {
      statements += 1;
      return query(...args);
    }) as typeof query;

    try {
      const results = await Promise.all(
        sessionIds.map((sessionId, i) =>
          batched.saveState({ accountId, sessionId }, 5, {
            state: 'connected',
            // s8 asks for s9's number: only s8's write is refused for it.
            phoneNumber: i === 8 ? '255700009999' : `2557000${String(i).padStart(5, '0')}`,
            reason: null,
          }),
        ),
      );

      expect(results[7]).toBe('fenced');
      expect(results[8]).toBe('number_in_use');
      expect(results.filter((result) => result === 'saved')).toHaveLength(198);
      expect(statements).toBeLessThan(sessionIds.length / 2);
    } finally {
      db.dataSource.query = query;
    }
    const stored = await rows.findBy({ accountId });
    const byId = new Map(stored.map((row) => [row.sessionId, row]));
    expect(byId.get('s0')).toMatchObject({ state: 'connected', phoneNumber: '255700000000', ownerToken: 5 });
    expect(byId.get('s7')).toMatchObject({ state: 'connecting', ownerToken: 9 });
    expect(byId.get('s8')).toMatchObject({ state: 'connecting', phoneNumber: null });
  });
});
