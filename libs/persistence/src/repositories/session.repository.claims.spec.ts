import type { DataSource } from 'typeorm';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { NetworkCredentialStore } from './network-credential-store';
import { SessionRepository, type SessionRef } from './session.repository';
import { closeAll, createAccount, openExtraDataSources } from './test-support/fixtures';

/** The row as PostgreSQL holds it, read without the repository under test. */
async function storedRow(dataSource: DataSource, ref: SessionRef) {
  const rows = (await dataSource.query(
    `SELECT shard, state, phone_number, reason, owner_token::int AS owner_token
       FROM sessions WHERE account_id = $1 AND session_id = $2`,
    [ref.accountId, ref.sessionId],
  )) as {
    shard: number;
    state: string;
    phone_number: string | null;
    reason: string | null;
    owner_token: number;
  }[];
  return rows[0] ?? null;
}

describe('SessionRepository: reads, start claims and fenced writes', () => {
  let db: MigratedTestDatabase;
  let sessions: SessionRepository;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    sessions = new SessionRepository(db.dataSource);
  });
  afterAll(() => db.close());

  const ref = (accountId: string, sessionId: string): SessionRef => ({ accountId, sessionId });

  describe('find and list', () => {
    it('finds a started session, only within its own account', async () => {
      const alice = await createAccount(db.dataSource);
      const bob = await createAccount(db.dataSource);
      await sessions.claimStart(ref(alice, 'main'), 7, 3, 5);

      expect(await sessions.find(ref(alice, 'main'))).toEqual({
        accountId: alice,
        sessionId: 'main',
        shard: 7,
        state: 'starting',
        phoneNumber: null,
        reason: null,
        ownerToken: 3,
        updatedAt: expect.any(Date),
      });
      expect(await sessions.find(ref(bob, 'main'))).toBeNull();
      expect(await sessions.find(ref(alice, 'other'))).toBeNull();
      expect(await sessions.find(ref('not-a-uuid', 'main'))).toBeNull();
    });

    it("lists only the account's sessions, by session id", async () => {
      const alice = await createAccount(db.dataSource);
      const bob = await createAccount(db.dataSource);
      for (const id of ['charlie', 'alpha', 'bravo']) await sessions.claimStart(ref(alice, id), 1, 1, 10);
      await sessions.claimStart(ref(bob, 'zulu'), 1, 1, 10);

      expect((await sessions.list(alice)).map((s) => s.sessionId)).toEqual(['alpha', 'bravo', 'charlie']);
      expect((await sessions.list(bob)).map((s) => s.sessionId)).toEqual(['zulu']);
      expect(await sessions.list('not-a-uuid')).toEqual([]);
    });

    it("takes over a shard's active sessions in one statement: raises their tokens, returns them oldest update first", async () => {
      const account = await createAccount(db.dataSource);
      const credentials = new NetworkCredentialStore(db.dataSource);
      // Shards 40..43 are used by this test only.
      await sessions.claimStart(ref(account, 's40-early'), 40, 1, 10);
      await sessions.claimStart(ref(account, 's40-late'), 40, 1, 10);
      await sessions.claimStart(ref(account, 's41'), 41, 1, 10);
      await sessions.claimStart(ref(account, 's40-gone'), 40, 1, 10);
      await sessions.saveState(ref(account, 's40-gone'), 1, {
        state: 'disconnected',
        phoneNumber: null,
        reason: 'logged_out',
      });
      // Already held by a newer owner than the one taking the shard over.
      await sessions.claimStart(ref(account, 's40-newer'), 40, 9, 10);
      // A later write makes s40-late the most recently updated.
      await sessions.saveState(ref(account, 's40-late'), 1, {
        state: 'connected',
        phoneNumber: '255700004001',
        reason: null,
      });

      const taken = await sessions.takeOverShard(40, 5);
      expect(taken.map((s) => [s.sessionId, s.state, s.ownerToken])).toEqual([
        ['s40-early', 'starting', 5],
        ['s40-late', 'connected', 5],
      ]);
      expect(taken[1]).toMatchObject({ shard: 40, phoneNumber: '255700004001', accountId: account });
      // The previous owner is fenced from now on, for its state and its credentials alike.
      const late = { state: 'qr_ready' as const, phoneNumber: null, reason: null };
      expect(await sessions.saveState(ref(account, 's40-late'), 1, late)).toBe('fenced');
      expect(
        await credentials.write(ref(account, 's40-late'), 1, [
          { kind: 'creds', keyId: 'x', value: Buffer.from('late') },
        ]),
      ).toBe('fenced');
      // Not taken: another shard, a disconnected session, a session a newer owner holds.
      expect((await storedRow(db.dataSource, ref(account, 's41')))?.owner_token).toBe(1);
      expect((await storedRow(db.dataSource, ref(account, 's40-gone')))?.owner_token).toBe(1);
      expect((await storedRow(db.dataSource, ref(account, 's40-newer')))?.owner_token).toBe(9);
      expect(await sessions.takeOverShard(43, 5)).toEqual([]);
    });

    // Issue 28: a WhatsApp incident (refusals, a version bump, unexplained stream errors) ended
    // linked sessions, and nothing ever resumed them.
    it('takes over, to resume them, linked sessions a transient WhatsApp problem ended; never logged-out, banned or replaced ones', async () => {
      const account = await createAccount(db.dataSource);
      const ended = {
        's44-refused': { reason: 'network_refused', phoneNumber: '255700004401' },
        's44-outdated': { reason: 'client_outdated', phoneNumber: '255700004402' },
        's44-stream-error': { reason: 'bad_session', phoneNumber: '255700004403' },
        's44-logged-out': { reason: 'logged_out', phoneNumber: null },
        's44-banned': { reason: 'forbidden', phoneNumber: '255700004405' },
        's44-replaced': { reason: 'connection_replaced', phoneNumber: '255700004406' },
        's44-never-linked': { reason: 'bad_session', phoneNumber: null },
      };
      for (const [sessionId, { reason, phoneNumber }] of Object.entries(ended)) {
        await sessions.claimStart(ref(account, sessionId), 44, 1, 10);
        await sessions.saveState(ref(account, sessionId), 1, { state: 'disconnected', phoneNumber, reason });
      }

      const taken = await sessions.takeOverShard(44, 2);
      expect(taken.map((s) => s.sessionId).sort()).toEqual([
        's44-outdated',
        's44-refused',
        's44-stream-error',
      ]);
      expect(taken.every((s) => s.state === 'disconnected' && s.ownerToken === 2)).toBe(true);
      expect((await storedRow(db.dataSource, ref(account, 's44-banned')))?.owner_token).toBe(1);
    });
  });

  describe('claimStart', () => {
    it('starts a new session as `starting` with the shard and token given', async () => {
      const account = await createAccount(db.dataSource);
      const claim = await sessions.claimStart(ref(account, 'new'), 12, 4, 1);
      expect(claim).toEqual({
        outcome: 'started',
        session: expect.objectContaining({ sessionId: 'new', shard: 12, state: 'starting', ownerToken: 4 }),
      });
      expect(await storedRow(db.dataSource, ref(account, 'new'))).toEqual({
        shard: 12,
        state: 'starting',
        phone_number: null,
        reason: null,
        owner_token: 4,
      });
    });

    it('refuses a session beyond the cap, counting every state but disconnected', async () => {
      const account = await createAccount(db.dataSource);
      await sessions.claimStart(ref(account, 'a'), 1, 1, 2);
      await sessions.claimStart(ref(account, 'b'), 1, 1, 2);

      expect(await sessions.claimStart(ref(account, 'c'), 1, 1, 2)).toEqual({
        outcome: 'limit_reached',
        active: 2,
      });
      expect(await storedRow(db.dataSource, ref(account, 'c'))).toBeNull();

      await sessions.saveState(ref(account, 'b'), 1, {
        state: 'disconnected',
        phoneNumber: null,
        reason: 'logged_out',
      });
      expect((await sessions.claimStart(ref(account, 'c'), 1, 1, 2)).outcome).toBe('started');
    });

    it('does not count an already-active session against itself (a restart at the cap)', async () => {
      const account = await createAccount(db.dataSource);
      await sessions.claimStart(ref(account, 'a'), 1, 1, 2);
      await sessions.claimStart(ref(account, 'b'), 1, 1, 2);
      await sessions.saveState(ref(account, 'a'), 1, { state: 'qr_ready', phoneNumber: null, reason: null });

      const again = await sessions.claimStart(ref(account, 'a'), 1, 1, 2);
      expect(again).toEqual({ outcome: 'started', session: expect.objectContaining({ state: 'starting' }) });
      expect(await sessions.countActive(account)).toBe(2);
    });

    it('clears the number and reason of a session started again', async () => {
      const account = await createAccount(db.dataSource);
      await sessions.claimStart(ref(account, 'a'), 1, 1, 5);
      await sessions.saveState(ref(account, 'a'), 1, {
        state: 'disconnected',
        phoneNumber: '255700100100',
        reason: 'network_error',
      });
      await sessions.claimStart(ref(account, 'a'), 1, 1, 5);
      expect(await storedRow(db.dataSource, ref(account, 'a'))).toMatchObject({
        state: 'starting',
        phone_number: null,
        reason: null,
      });
    });

    it('is exact under 10 concurrent claims for one account from separate connections (cap 3)', async () => {
      const extra = await openExtraDataSources(db.url, 10);
      try {
        for (let round = 0; round < 3; round++) {
          const account = await createAccount(db.dataSource);
          const claims = await Promise.all(
            extra.map((source, index) =>
              new SessionRepository(source).claimStart(ref(account, `s${index}`), index, 1, 3),
            ),
          );
          const started = claims.filter((claim) => claim.outcome === 'started');
          expect(started).toHaveLength(3);
          expect(claims.filter((claim) => claim.outcome === 'limit_reached')).toHaveLength(7);
          expect(await sessions.countActive(account)).toBe(3);
          expect((await sessions.list(account)).map((s) => s.sessionId).sort()).toEqual(
            started.map((claim) => (claim.outcome === 'started' ? claim.session.sessionId : '')).sort(),
          );
        }
      } finally {
        await closeAll(extra);
      }
    });

    it("is fenced when the row's owner token is newer, and leaves the row alone", async () => {
      const account = await createAccount(db.dataSource);
      await sessions.claimStart(ref(account, 'a'), 5, 8, 5);
      await sessions.saveState(ref(account, 'a'), 8, {
        state: 'connected',
        phoneNumber: '255700200200',
        reason: null,
      });

      expect(await sessions.claimStart(ref(account, 'a'), 6, 7, 5)).toEqual({ outcome: 'fenced' });
      expect(await storedRow(db.dataSource, ref(account, 'a'))).toEqual({
        shard: 5,
        state: 'connected',
        phone_number: '255700200200',
        reason: null,
        owner_token: 8,
      });

      const newer = await sessions.claimStart(ref(account, 'a'), 5, 9, 5);
      expect(newer).toEqual({
        outcome: 'started',
        session: expect.objectContaining({ state: 'starting', ownerToken: 9 }),
      });
    });
  });

  describe('saveState', () => {
    it('refuses a write with an older token and accepts one with the same or a newer token', async () => {
      const account = await createAccount(db.dataSource);
      const a = ref(account, 'a');
      await sessions.claimStart(a, 2, 5, 5);

      expect(await sessions.saveState(a, 4, { state: 'qr_ready', phoneNumber: null, reason: null })).toBe(
        'fenced',
      );
      expect(await storedRow(db.dataSource, a)).toMatchObject({ state: 'starting', owner_token: 5 });

      expect(await sessions.saveState(a, 5, { state: 'qr_ready', phoneNumber: null, reason: null })).toBe(
        'saved',
      );
      expect(
        await sessions.saveState(a, 6, { state: 'connected', phoneNumber: '255700300300', reason: null }),
      ).toBe('saved');
      expect(await storedRow(db.dataSource, a)).toEqual({
        shard: 2,
        state: 'connected',
        phone_number: '255700300300',
        reason: null,
        owner_token: 6,
      });

      // The previous owner (token 5) lost the session to token 6.
      expect(
        await sessions.saveState(a, 5, { state: 'disconnected', phoneNumber: null, reason: 'logged_out' }),
      ).toBe('fenced');
      expect(await storedRow(db.dataSource, a)).toMatchObject({ state: 'connected', owner_token: 6 });
    });

    it('is fenced for a session that does not exist', async () => {
      const account = await createAccount(db.dataSource);
      expect(
        await sessions.saveState(ref(account, 'ghost'), 1, {
          state: 'qr_ready',
          phoneNumber: null,
          reason: null,
        }),
      ).toBe('fenced');
      expect(await storedRow(db.dataSource, ref(account, 'ghost'))).toBeNull();
    });

    it('reports number_in_use when the number is connected to another session, in any account', async () => {
      const alice = await createAccount(db.dataSource);
      const bob = await createAccount(db.dataSource);
      await sessions.claimStart(ref(alice, 'a'), 1, 1, 5);
      await sessions.claimStart(ref(bob, 'b'), 1, 1, 5);
      await sessions.saveState(ref(alice, 'a'), 1, {
        state: 'connected',
        phoneNumber: '255700400400',
        reason: null,
      });

      expect(
        await sessions.saveState(ref(bob, 'b'), 1, {
          state: 'connected',
          phoneNumber: '255700400400',
          reason: null,
        }),
      ).toBe('number_in_use');
      expect(await storedRow(db.dataSource, ref(bob, 'b'))).toMatchObject({
        state: 'starting',
        phone_number: null,
      });

      // Free again once the first session is logged out.
      await sessions.saveState(ref(alice, 'a'), 1, {
        state: 'disconnected',
        phoneNumber: null,
        reason: 'logged_out',
      });
      expect(
        await sessions.saveState(ref(bob, 'b'), 1, {
          state: 'connected',
          phoneNumber: '255700400400',
          reason: null,
        }),
      ).toBe('saved');
    });
  });

  describe('delete', () => {
    it('is fenced for an older token, and removes the session and its credentials otherwise', async () => {
      const account = await createAccount(db.dataSource);
      const a = ref(account, 'a');
      await sessions.claimStart(a, 3, 10, 5);
      const credentials = new NetworkCredentialStore(db.dataSource);
      expect(
        await credentials.write(a, 10, [{ kind: 'creds', keyId: 'main', value: Buffer.from('secret') }]),
      ).toBe('saved');

      expect(await sessions.delete(a, 9)).toBe(false);
      expect(await storedRow(db.dataSource, a)).not.toBeNull();
      expect(await credentials.count(a)).toBe(1);

      expect(await sessions.delete(a, 10)).toBe(true);
      expect(await storedRow(db.dataSource, a)).toBeNull();
      expect(await credentials.count(a)).toBe(0);
      expect(await sessions.delete(a, 10)).toBe(false);
    });

    it("takes the session's own proxy and call settings with it, and no other session's", async () => {
      const account = await createAccount(db.dataSource);
      const a = ref(account, 'a');
      await sessions.claimStart(a, 3, 10, 5);
      const settingsOf = async (sessionId: string) =>
        (await db.dataSource.query(
          `SELECT (SELECT count(*) FROM session_proxies WHERE account_id = $1 AND session_id = $2)::int AS proxies,
                  (SELECT count(*) FROM session_call_settings WHERE account_id = $1 AND session_id = $2)::int AS calls`,
          [account, sessionId],
        )) as Array<{ proxies: number; calls: number }>;
      for (const sessionId of ['a', 'b']) {
        await db.dataSource.query(
          `INSERT INTO session_proxies (account_id, session_id, masked_url, url_ciphertext, updated_at)
           VALUES ($1, $2, 'socks5://u:****@proxy.example.com:1080', 'sealed', now())`,
          [account, sessionId],
        );
        await db.dataSource.query(
          `INSERT INTO session_call_settings (account_id, session_id, reject_calls) VALUES ($1, $2, true)`,
          [account, sessionId],
        );
      }

      expect(await sessions.delete(a, 9)).toBe(false);
      expect(await settingsOf('a')).toEqual([{ proxies: 1, calls: 1 }]);
      expect(await sessions.delete(a, 10)).toBe(true);
      expect(await settingsOf('a')).toEqual([{ proxies: 0, calls: 0 }]);
      expect(await settingsOf('b')).toEqual([{ proxies: 1, calls: 1 }]);
    });
  });
});
