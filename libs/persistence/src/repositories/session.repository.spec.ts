import type { SessionState } from '@jumbe/domain';
import type { Repository } from 'typeorm';
import { SessionEntity } from '../entities/session.entity';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { AccountRepository } from './account.repository';
import { PlanRepository } from './plan.repository';
import { SessionRepository } from './session.repository';

describe('SessionRepository', () => {
  let db: MigratedTestDatabase;
  let sessions: SessionRepository;
  let rows: Repository<SessionEntity>;
  let alice: string;
  let bob: string;

  const insert = (
    accountId: string,
    sessionId: string,
    state: SessionState,
    phoneNumber: string | null = null,
  ) => rows.insert({ accountId, sessionId, shard: 0, state, phoneNumber, reason: null });

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    sessions = new SessionRepository(db.dataSource);
    rows = db.dataSource.getRepository(SessionEntity);
    const plan = await new PlanRepository(db.dataSource).create({
      name: 'p',
      monthlyApiHits: 10,
      maxSessions: 5,
    });
    const accounts = new AccountRepository(db.dataSource);
    alice = (await accounts.create({ name: 'Alice', planId: plan.id })).id;
    bob = (await accounts.create({ name: 'Bob', planId: plan.id })).id;
  });
  afterAll(() => db.close());

  it("counts an account's sessions in every state but disconnected", async () => {
    expect(await sessions.countActive(alice)).toBe(0);
    await insert(alice, 'a', 'starting');
    await insert(alice, 'b', 'qr_ready');
    await insert(alice, 'c', 'pairing_code_ready');
    await insert(alice, 'd', 'connecting');
    await insert(alice, 'e', 'connected', '255700000001');
    await insert(alice, 'f', 'disconnected');
    await insert(bob, 'a', 'connected', '255700000002');
    expect(await sessions.countActive(alice)).toBe(5);
    expect(await sessions.countActive(bob)).toBe(1);
    expect(await sessions.countActive('not-a-uuid')).toBe(0);
  });

  it('returns owner_token (bigint) as a number', async () => {
    await rows.insert({
      accountId: bob,
      sessionId: 'fenced',
      shard: 0,
      state: 'starting',
      ownerToken: 2 ** 40,
    });
    const row = await rows.findOneByOrFail({ accountId: bob, sessionId: 'fenced' });
    expect(row.ownerToken).toBe(2 ** 40);
  });

  describe('one number, one connected session', () => {
    it('rejects a second connecting or connected session with the same number, in any account', async () => {
      await insert(alice, 'phone-1', 'connected', '255711111111');
      await expect(insert(bob, 'phone-1', 'connected', '255711111111')).rejects.toThrow(
        /sessions_connected_phone_number_key/,
      );
      await expect(insert(alice, 'phone-2', 'connecting', '255711111111')).rejects.toThrow(
        /sessions_connected_phone_number_key/,
      );
    });

    it('allows the number again once the first session is disconnected, and on inactive sessions', async () => {
      await insert(alice, 'phone-3', 'connected', '255722222222');
      await insert(bob, 'phone-3', 'disconnected', '255722222222');
      await rows.update({ accountId: alice, sessionId: 'phone-3' }, { state: 'disconnected' });
      await expect(insert(bob, 'phone-4', 'connected', '255722222222')).resolves.toBeDefined();
    });
  });
});
