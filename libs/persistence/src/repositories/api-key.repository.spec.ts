import type { Account } from '../models/account';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { AccountRepository } from './account.repository';
import { ApiKeyRepository } from './api-key.repository';
import { PlanRepository } from './plan.repository';

describe('ApiKeyRepository', () => {
  let db: MigratedTestDatabase;
  let keys: ApiKeyRepository;
  let alice: Account;
  let bob: Account;
  let counter = 0;
  const uniqueHash = () => `hash-${++counter}-${Math.random()}`;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    keys = new ApiKeyRepository(db.dataSource);
    const plan = await new PlanRepository(db.dataSource).create({
      name: 'p',
      monthlyApiHits: 10,
      maxSessions: 1,
    });
    const accounts = new AccountRepository(db.dataSource);
    alice = await accounts.create({ name: 'Alice', planId: plan.id });
    bob = await accounts.create({ name: 'Bob', planId: plan.id });
  });
  afterAll(() => db.close());

  it('creates a key and never returns its hash', async () => {
    const key = await keys.create({
      accountId: alice.id,
      name: 'ci',
      scope: 'read',
      prefix: 'jmb_abcd',
      keyHash: uniqueHash(),
    });
    expect(key).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      accountId: alice.id,
      name: 'ci',
      scope: 'read',
      prefix: 'jmb_abcd',
      createdAt: expect.any(Date),
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(key).not.toHaveProperty('keyHash');
  });

  it('refuses a scope other than full or read', async () => {
    await expect(
      keys.create({
        accountId: alice.id,
        name: null,
        scope: 'admin' as never,
        prefix: 'jmb_x',
        keyHash: uniqueHash(),
      }),
    ).rejects.toThrow();
  });

  it('finds an active key by hash, with its account and scope', async () => {
    const hash = uniqueHash();
    const key = await keys.create({
      accountId: bob.id,
      name: null,
      scope: 'full',
      prefix: 'jmb_bob1',
      keyHash: hash,
    });
    expect(await keys.findActiveByHash(hash)).toEqual({
      id: key.id,
      accountId: bob.id,
      scope: 'full',
      revokesAt: null,
    });
    expect(await keys.findActiveByHash('no-such-hash')).toBeNull();
  });

  it("lists an account's keys newest first, revoked ones included, and only that account's", async () => {
    // Another account's key exists whichever tests ran before this one.
    const theirs = await keys.create({
      accountId: alice.id,
      name: 'not bob',
      scope: 'full',
      prefix: 'jmb_a',
      keyHash: uniqueHash(),
    });
    const own = await keys.create({
      accountId: bob.id,
      name: 'one',
      scope: 'full',
      prefix: 'jmb_1',
      keyHash: uniqueHash(),
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = await keys.create({
      accountId: bob.id,
      name: 'two',
      scope: 'read',
      prefix: 'jmb_2',
      keyHash: uniqueHash(),
    });
    await keys.revoke(bob.id, own.id);

    const listed = await keys.listByAccount(bob.id);
    expect(listed.every((key) => key.accountId === bob.id)).toBe(true);
    expect(listed.map((key) => key.id)).not.toContain(theirs.id);
    const ids = listed.map((key) => key.id);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(own.id));
    expect(listed.find((key) => key.id === own.id)?.revokedAt).toBeInstanceOf(Date);
    expect(listed.find((key) => key.id === newer.id)?.revokedAt).toBeNull();
    for (let i = 1; i < listed.length; i++) {
      expect(listed[i - 1].createdAt.getTime()).toBeGreaterThanOrEqual(listed[i].createdAt.getTime());
    }
    expect(await keys.listByAccount('not-a-uuid')).toEqual([]);
  });

  it('revokes a key: it no longer authenticates, and revoking again keeps the first time', async () => {
    const hash = uniqueHash();
    const key = await keys.create({
      accountId: alice.id,
      name: null,
      scope: 'full',
      prefix: 'jmb_r',
      keyHash: hash,
    });

    const revoked = await keys.revoke(alice.id, key.id);
    expect(revoked).toEqual({ ...key, revokedAt: expect.any(Date) });
    expect(await keys.findActiveByHash(hash)).toBeNull();

    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await keys.revoke(alice.id, key.id);
    expect(again?.revokedAt?.getTime()).toBe(revoked?.revokedAt?.getTime());
  });

  it('schedules a revocation: the key works until then, and a revoke brings it forward', async () => {
    const hash = uniqueHash();
    const key = await keys.create({
      accountId: alice.id,
      name: null,
      scope: 'full',
      prefix: 'jmb_s',
      keyHash: hash,
    });
    const at = new Date(Date.now() + 60 * 60_000);

    const scheduled = await keys.scheduleRevoke(alice.id, key.id, at);
    expect(scheduled?.revokedAt?.getTime()).toBe(at.getTime());
    expect(await keys.findActiveByHash(hash)).toEqual({
      id: key.id,
      accountId: alice.id,
      scope: 'full',
      revokesAt: at,
    });
    // A later schedule never postpones an earlier one; another account cannot schedule it.
    await keys.scheduleRevoke(alice.id, key.id, new Date(at.getTime() + 60_000));
    expect((await keys.listByAccount(alice.id)).find((k) => k.id === key.id)?.revokedAt?.getTime()).toBe(
      at.getTime(),
    );
    expect(await keys.scheduleRevoke(bob.id, key.id, new Date())).toBeNull();

    const revoked = await keys.revoke(alice.id, key.id);
    expect(revoked!.revokedAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await keys.findActiveByHash(hash)).toBeNull();

    // A schedule in the past ends the key as soon as it is reached.
    const other = uniqueHash();
    const short = await keys.create({
      accountId: alice.id,
      name: null,
      scope: 'read',
      prefix: 'jmb_t',
      keyHash: other,
    });
    await keys.scheduleRevoke(alice.id, short.id, new Date(Date.now() - 1));
    expect(await keys.findActiveByHash(other)).toBeNull();
  });

  it("does not revoke a key through another account's id", async () => {
    const hash = uniqueHash();
    const key = await keys.create({
      accountId: alice.id,
      name: null,
      scope: 'full',
      prefix: 'jmb_a',
      keyHash: hash,
    });

    expect(await keys.revoke(bob.id, key.id)).toBeNull();
    expect(await keys.findActiveByHash(hash)).toEqual({
      id: key.id,
      accountId: alice.id,
      scope: 'full',
      revokesAt: null,
    });
    expect((await keys.listByAccount(alice.id)).find((listed) => listed.id === key.id)?.revokedAt).toBeNull();
  });

  it('answers null for unknown and malformed ids', async () => {
    expect(await keys.revoke(alice.id, '00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await keys.revoke(alice.id, 'nope')).toBeNull();
    expect(await keys.revoke('nope', '00000000-0000-4000-8000-000000000000')).toBeNull();
    const later = new Date(Date.now() + 60_000);
    expect(await keys.scheduleRevoke(alice.id, 'nope', later)).toBeNull();
    expect(await keys.scheduleRevoke('nope', '00000000-0000-4000-8000-000000000000', later)).toBeNull();
  });

  // GET /api/v1/keys shows when each key was last used: only the key used moves.
  it('marks only the key used as just used, and ignores a malformed id', async () => {
    const used = await keys.create({
      accountId: alice.id,
      name: 'used',
      scope: 'full',
      prefix: 'jmb_u',
      keyHash: uniqueHash(),
    });
    const idle = await keys.create({
      accountId: alice.id,
      name: 'idle',
      scope: 'read',
      prefix: 'jmb_i',
      keyHash: uniqueHash(),
    });
    const before = Date.now();
    await keys.markUsed(used.id);
    await keys.markUsed('nope');
    const listed = await keys.listByAccount(alice.id);
    const usedAt = listed.find((key) => key.id === used.id)?.lastUsedAt;
    expect(usedAt).toBeInstanceOf(Date);
    // The database's clock and this process's may differ a little.
    expect(usedAt?.getTime()).toBeGreaterThan(before - 5_000);
    expect(listed.find((key) => key.id === idle.id)?.lastUsedAt).toBeNull();
  });
});
