import { randomBytes } from 'node:crypto';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { ApiKeyRepository } from './api-key.repository';
import { DashboardSessionRepository } from './dashboard-session.repository';
import { createAccount } from './test-support/fixtures';

describe('DashboardSessionRepository', () => {
  let db: MigratedTestDatabase;
  let sessions: DashboardSessionRepository;
  let keys: ApiKeyRepository;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    sessions = new DashboardSessionRepository(db.dataSource);
    keys = new ApiKeyRepository(db.dataSource);
  });
  afterAll(() => db.close());

  const hash = () => randomBytes(32).toString('hex');
  const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000);
  async function keyOf(accountId: string, scope: 'full' | 'read' = 'full') {
    return keys.create({ accountId, name: null, scope, prefix: 'jmb_test', keyHash: hash() });
  }

  it("finds a live session with its key's account and scope, by the token's hash only", async () => {
    const accountId = await createAccount(db.dataSource);
    const key = await keyOf(accountId, 'read');
    const tokenHash = hash();
    const { id } = await sessions.open({ accountId, keyId: key.id, tokenHash, expiresAt: inHours(12) }, 20);
    expect(await sessions.findLive(tokenHash)).toEqual({
      id,
      accountId,
      keyId: key.id,
      scope: 'read',
      expiresAt: expect.any(Date),
    });
    expect(await sessions.findLive(hash())).toBeNull();
  });

  it('ends a session at sign-out, at its expiry, and when its key is revoked', async () => {
    const accountId = await createAccount(db.dataSource);
    const key = await keyOf(accountId);
    const signedOut = hash();
    const { id } = await sessions.open(
      { accountId, keyId: key.id, tokenHash: signedOut, expiresAt: inHours(12) },
      20,
    );
    expect(await sessions.end(id)).toBe(true);
    expect(await sessions.end(id)).toBe(false);
    expect(await sessions.findLive(signedOut)).toBeNull();

    const expired = hash();
    await sessions.open(
      { accountId, keyId: key.id, tokenHash: expired, expiresAt: new Date(Date.now() - 1) },
      20,
    );
    expect(await sessions.findLive(expired)).toBeNull();

    const revoked = hash();
    await sessions.open({ accountId, keyId: key.id, tokenHash: revoked, expiresAt: inHours(12) }, 20);
    expect(await sessions.findLive(revoked)).not.toBeNull();
    await keys.revoke(accountId, key.id);
    expect(await sessions.findLive(revoked)).toBeNull();

    // The next sign-in sweeps the sessions that no longer work; only its own remains.
    const next = hash();
    await sessions.open(
      { accountId, keyId: (await keyOf(accountId)).id, tokenHash: next, expiresAt: inHours(12) },
      20,
    );
    const rows = (await db.dataSource.query(
      `SELECT token_hash FROM dashboard_sessions WHERE account_id = $1`,
      [accountId],
    )) as Array<{ token_hash: string }>;
    expect(rows.map((row) => row.token_hash)).toEqual([next]);
  });

  it("keeps at most the cap of an account's sessions, ending the oldest; other accounts untouched", async () => {
    const accountId = await createAccount(db.dataSource);
    const other = await createAccount(db.dataSource);
    const key = await keyOf(accountId);
    const otherToken = hash();
    await sessions.open(
      { accountId: other, keyId: (await keyOf(other)).id, tokenHash: otherToken, expiresAt: inHours(1) },
      2,
    );
    const tokens = [hash(), hash(), hash()];
    for (const tokenHash of tokens) {
      await sessions.open({ accountId, keyId: key.id, tokenHash, expiresAt: inHours(1) }, 2);
    }
    expect(await sessions.findLive(tokens[0] ?? '')).toBeNull();
    expect(await sessions.findLive(tokens[1] ?? '')).not.toBeNull();
    expect(await sessions.findLive(tokens[2] ?? '')).not.toBeNull();
    expect(await sessions.findLive(otherToken)).not.toBeNull();
  });
});
