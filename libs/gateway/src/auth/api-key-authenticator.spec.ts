import { ACCESS_INVALIDATION_TOPIC, ApiError, encodeAccessInvalidation } from '@jumbe/contracts';
import { MemoryInvalidationBus, type InvalidationBus } from '@jumbe/coordination';
import { displayPrefix, generateApiKey, hashApiKey, type KeyScope } from '@jumbe/domain';
import {
  AccountRepository,
  ApiKeyRepository,
  createDataSource,
  openMigratedTestDatabase,
  PlanRepository,
  type Account,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { LossyInvalidationBus } from '../test-support/lossy-invalidation-bus';
import { ApiKeyAuthenticator, extractApiKey } from './api-key-authenticator';

/** The ApiError `promise` rejects with (failing the test if it resolves or rejects otherwise). */
async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => new Error('expected an ApiError, but it resolved'),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('ApiKeyAuthenticator (PostgreSQL)', () => {
  let db: MigratedTestDatabase;
  let keys: ApiKeyRepository;
  let account: Account;

  /** A key stored as the admin API stores it: only its hash. */
  async function issueKey(scope: KeyScope = 'full'): Promise<{ key: string; id: string }> {
    const key = generateApiKey();
    const stored = await keys.create({
      accountId: account.id,
      name: null,
      scope,
      prefix: displayPrefix(key),
      keyHash: hashApiKey(key),
    });
    return { key, id: stored.id };
  }

  async function started(bus: InvalidationBus = new MemoryInvalidationBus()): Promise<ApiKeyAuthenticator> {
    const authenticator = new ApiKeyAuthenticator(keys, bus);
    await authenticator.start();
    return authenticator;
  }

  const revokeKeyEverywhere = (bus: InvalidationBus, keyId: string) =>
    bus.publish(ACCESS_INVALIDATION_TOPIC, encodeAccessInvalidation({ v: 1, kind: 'key', keyId }));

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    keys = new ApiKeyRepository(db.dataSource);
    const plan = await new PlanRepository(db.dataSource).create({
      name: 'starter',
      monthlyApiHits: 100,
      maxSessions: 1,
    });
    account = await new AccountRepository(db.dataSource).create({ name: 'Acme', planId: plan.id });
  });
  afterAll(() => db.close());

  it('resolves a valid key to its key id, account and scope', async () => {
    const authenticator = await started();
    const { key, id } = await issueKey('read');
    await expect(authenticator.authenticate(key)).resolves.toEqual({
      keyId: id,
      accountId: account.id,
      scope: 'read',
    });
  });

  it('records when a key was last used, writing at most once a minute per key', async () => {
    const authenticator = await started();
    const { key, id } = await issueKey();
    const lastUsed = async () => (await keys.listByAccount(account.id)).find((k) => k.id === id)!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    await authenticator.authenticate(key);
    let first: Date | null = null;
    for (let i = 0; i < 50 && first === null; i += 1) {
      first = await lastUsed();
      if (first === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(first!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    await authenticator.authenticate(key);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await lastUsed()).toEqual(first);
  });

  it('serves a key it resolved from its cache, even after the database row changed', async () => {
    const authenticator = await started();
    const { key, id } = await issueKey();
    await authenticator.authenticate(key);
    await keys.revoke(account.id, id); // no invalidation published
    await expect(authenticator.authenticate(key)).resolves.toEqual(expect.objectContaining({ keyId: id }));
  });

  it('refuses a well-formed key that was never issued with 401 unauthorized', async () => {
    const authenticator = await started();
    const error = await apiErrorOf(authenticator.authenticate(generateApiKey()));
    expect(error.code).toBe('unauthorized');
    expect(error.status).toBe(401);
    expect(error.message).toContain('x-api-key');
  });

  it('refuses a revoked key with 401', async () => {
    const authenticator = await started();
    const { key, id } = await issueKey();
    await keys.revoke(account.id, id);
    expect((await apiErrorOf(authenticator.authenticate(key))).status).toBe(401);
  });

  it.each([
    ['no key', null],
    ['an empty key', ''],
    ['a key without the jmb_ prefix', 'x'.repeat(47)],
    ['a truncated key', 'jmb_abc'],
  ])('refuses %s with 401 unauthorized', async (_label, presented) => {
    const authenticator = await started();
    const error = await apiErrorOf(authenticator.authenticate(presented));
    expect(error.code).toBe('unauthorized');
    expect(error.status).toBe(401);
  });

  it('refuses a valid key with a character appended or missing', async () => {
    const authenticator = await started();
    const { key } = await issueKey();
    await authenticator.authenticate(key);
    expect((await apiErrorOf(authenticator.authenticate(`${key}A`))).status).toBe(401);
    expect((await apiErrorOf(authenticator.authenticate(key.slice(0, -1)))).status).toBe(401);
  });

  it('stops accepting a rotated key when its grace period ends, with no invalidation, though it was cached', async () => {
    const authenticator = await started();
    const { key, id } = await issueKey();
    const graceEnds = Date.now() + 1_500;
    await keys.scheduleRevoke(account.id, id, new Date(graceEnds));

    await expect(authenticator.authenticate(key)).resolves.toEqual(expect.objectContaining({ keyId: id }));
    await new Promise((resolve) => setTimeout(resolve, graceEnds - Date.now() + 50));

    expect((await apiErrorOf(authenticator.authenticate(key))).status).toBe(401);
  });

  it('tries again to record the last use when the write failed', async () => {
    let failures = 1;
    const marked: string[] = [];
    const authenticator = new ApiKeyAuthenticator(
      {
        findActiveByHash: (hash) => keys.findActiveByHash(hash),
        markUsed: async (keyId) => {
          marked.push(keyId);
          if (failures-- > 0) throw new Error('Connection terminated unexpectedly');
          await keys.markUsed(keyId);
        },
      },
      new MemoryInvalidationBus(),
    );
    const { key, id } = await issueKey();

    await authenticator.authenticate(key); // its write fails, in the background
    await new Promise((resolve) => setTimeout(resolve, 50));
    await authenticator.authenticate(key);
    await authenticator.authenticate(key);

    expect(marked).toEqual([id, id]);
  });

  it('stops accepting a revoked key at once when its invalidation is published', async () => {
    const bus = new MemoryInvalidationBus();
    const authenticator = await started(bus);
    const { key, id } = await issueKey();
    await authenticator.authenticate(key);

    await keys.revoke(account.id, id);
    await revokeKeyEverywhere(bus, id);

    expect((await apiErrorOf(authenticator.authenticate(key))).code).toBe('unauthorized');
  });

  it('evicts only the invalidated key: other cached keys stay cached', async () => {
    const bus = new MemoryInvalidationBus();
    const authenticator = await started(bus);
    const revoked = await issueKey();
    const other = await issueKey();
    await authenticator.authenticate(revoked.key);
    await authenticator.authenticate(other.key);
    // Both rows change, but only one invalidation arrives: the other key is still served from cache.
    await keys.revoke(account.id, revoked.id);
    await keys.revoke(account.id, other.id);
    await revokeKeyEverywhere(bus, revoked.id);

    expect((await apiErrorOf(authenticator.authenticate(revoked.key))).status).toBe(401);
    await expect(authenticator.authenticate(other.key)).resolves.toEqual(
      expect.objectContaining({ keyId: other.id }),
    );
  });

  it('drops every cached key on an invalidation message it cannot read (a newer publisher)', async () => {
    const bus = new MemoryInvalidationBus();
    const authenticator = await started(bus);
    const { key, id } = await issueKey();
    await authenticator.authenticate(key);
    await keys.revoke(account.id, id);

    await bus.publish(ACCESS_INVALIDATION_TOPIC, JSON.stringify({ v: 2, kind: 'key', keyIds: [id] }));

    expect((await apiErrorOf(authenticator.authenticate(key))).status).toBe(401);
  });

  it('drops every cached key when the bus reports that invalidations may have been lost', async () => {
    const bus = new LossyInvalidationBus();
    const authenticator = await started(bus);
    const { key, id } = await issueKey();
    await authenticator.authenticate(key);
    await keys.revoke(account.id, id); // its invalidation is "lost": never published

    await expect(authenticator.authenticate(key)).resolves.toEqual(expect.objectContaining({ keyId: id }));
    bus.simulatePossibleLoss();

    expect((await apiErrorOf(authenticator.authenticate(key))).status).toBe(401);
  });

  it('answers 503 unavailable with Retry-After, not 401, when the database cannot be reached', async () => {
    const closed = createDataSource(db.url, { poolSize: 1 });
    await closed.initialize();
    await closed.destroy();
    const authenticator = new ApiKeyAuthenticator(new ApiKeyRepository(closed), new MemoryInvalidationBus());
    await authenticator.start();

    const error = await apiErrorOf(authenticator.authenticate(generateApiKey()));
    expect(error.code).toBe('unavailable');
    expect(error.status).toBe(503);
    expect(error.headers).toEqual({ 'Retry-After': '2' });
  });
});

describe('extractApiKey', () => {
  const KEY = 'jmb_' + 'k'.repeat(43);

  it('reads the x-api-key header, trimmed', () => {
    expect(extractApiKey({ 'x-api-key': KEY })).toBe(KEY);
    expect(extractApiKey({ 'x-api-key': `  ${KEY}\t` })).toBe(KEY);
  });

  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('reads "Authorization: %s <key>"', (scheme) => {
    expect(extractApiKey({ authorization: `${scheme} ${KEY}` })).toBe(KEY);
  });

  it('tolerates extra spaces around the bearer key', () => {
    expect(extractApiKey({ authorization: `Bearer    ${KEY}   ` })).toBe(KEY);
  });

  it('uses neither of two different keys sent in one request (which account is meant is unclear)', () => {
    expect(extractApiKey({ 'x-api-key': KEY, authorization: 'Bearer jmb_other' })).toBeNull();
    expect(extractApiKey({ 'x-api-key': KEY, authorization: `Bearer ${KEY}` })).toBe(KEY);
  });

  it.each(['', '   '])('falls back to Authorization when x-api-key is %p', (empty) => {
    expect(extractApiKey({ 'x-api-key': empty, authorization: `Bearer ${KEY}` })).toBe(KEY);
  });

  it.each([
    ['no headers at all', {}],
    ['an empty x-api-key', { 'x-api-key': '' }],
    ['a blank x-api-key', { 'x-api-key': '   ' }],
    ['an empty Authorization', { authorization: '' }],
    ['a Bearer scheme without a key', { authorization: 'Bearer ' }],
    ['a bare Bearer', { authorization: 'Bearer' }],
    ['another scheme', { authorization: `Basic ${KEY}` }],
    ['a key without a scheme', { authorization: KEY }],
    ['text before the scheme', { authorization: `x Bearer ${KEY}` }],
    ['two words after Bearer', { authorization: `Bearer ${KEY} extra` }],
    ['undefined headers', { 'x-api-key': undefined, authorization: undefined }],
  ])('finds no key with %s', (_label, headers: Record<string, string | undefined>) => {
    expect(extractApiKey(headers)).toBeNull();
  });
});

describe('ApiKeyAuthenticator and the clock', () => {
  it("refuses a key whose revocation time has passed by the gateway's clock, though the database's lags", async () => {
    const key = generateApiKey();
    const authenticator = new ApiKeyAuthenticator(
      {
        // The database (its clock a second behind) still counts the key as active.
        findActiveByHash: async () => ({
          id: 'key-1',
          accountId: 'account-1',
          scope: 'full',
          revokesAt: new Date(Date.now() - 500),
        }),
      },
      new MemoryInvalidationBus(),
    );

    expect((await apiErrorOf(authenticator.authenticate(key))).status).toBe(401);
  });
});

describe('ApiKeyAuthenticator negative cache', () => {
  it('remembers an unknown key briefly, so replaying it costs no lookup', async () => {
    let lookups = 0;
    const authenticator = new ApiKeyAuthenticator(
      {
        findActiveByHash: async () => {
          lookups += 1;
          return null;
        },
      },
      new MemoryInvalidationBus(),
    );
    const unknown = generateApiKey();
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await apiErrorOf(authenticator.authenticate(unknown))).code).toBe('unauthorized');
    }
    expect(lookups).toBe(1);
    await apiErrorOf(authenticator.authenticate(generateApiKey()));
    expect(lookups).toBe(2);
  });
});
