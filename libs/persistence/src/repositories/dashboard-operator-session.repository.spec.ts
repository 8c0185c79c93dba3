import { randomBytes } from 'node:crypto';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { DashboardOperatorSessionRepository } from './dashboard-operator-session.repository';

describe('DashboardOperatorSessionRepository', () => {
  let db: MigratedTestDatabase;
  let sessions: DashboardOperatorSessionRepository;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    sessions = new DashboardOperatorSessionRepository(db.dataSource);
  });
  afterAll(() => db.close());

  const hash = () => randomBytes(32).toString('hex');
  const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000);

  it('finds a live session by its hash with its binding, until sign-out or expiry', async () => {
    const tokenHash = hash();
    const { id } = await sessions.open({ tokenHash, adminBinding: 'binding', expiresAt: inHours(12) }, 20);
    expect(await sessions.findLive(tokenHash)).toEqual({
      id,
      adminBinding: 'binding',
      expiresAt: expect.any(Date),
    });
    expect(await sessions.end(id)).toBe(true);
    expect(await sessions.end(id)).toBe(false);
    expect(await sessions.findLive(tokenHash)).toBeNull();

    const expired = hash();
    await sessions.open(
      { tokenHash: expired, adminBinding: 'binding', expiresAt: new Date(Date.now() - 1) },
      20,
    );
    expect(await sessions.findLive(expired)).toBeNull();
  });

  it('keeps at most the cap of live sessions, ending the oldest', async () => {
    const tokens = [hash(), hash(), hash()];
    for (const tokenHash of tokens)
      await sessions.open({ tokenHash, adminBinding: 'b', expiresAt: inHours(1) }, 2);
    expect(await sessions.findLive(tokens[0] ?? '')).toBeNull();
    expect(await sessions.findLive(tokens[1] ?? '')).not.toBeNull();
    expect(await sessions.findLive(tokens[2] ?? '')).not.toBeNull();
  });
});
