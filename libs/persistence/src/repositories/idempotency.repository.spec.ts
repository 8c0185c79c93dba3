import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { IDEMPOTENCY_WINDOW_HOURS, IdempotencyRepository } from './idempotency.repository';
import { closeAll, createAccount, openExtraDataSources } from './test-support/fixtures';

describe('IdempotencyRepository', () => {
  let db: MigratedTestDatabase;
  let idempotency: IdempotencyRepository;
  let account: string;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    idempotency = new IdempotencyRepository(db.dataSource);
    account = await createAccount(db.dataSource);
  });
  afterAll(() => db.close());

  /** Moves a record's creation back in time, as if it had been made `hours` ago. */
  const age = (accountId: string, key: string, hours: number) =>
    db.dataSource.query(
      `UPDATE idempotency_records SET created_at = now() - make_interval(hours => $3)
        WHERE account_id = $1 AND key = $2`,
      [accountId, key, hours],
    );

  it('claims a key the first time it is seen', async () => {
    expect(await idempotency.claim(account, 'k-new', 'hash-1')).toEqual({ kind: 'new' });
  });

  it('answers in_flight for the same request while the first has not completed', async () => {
    await idempotency.claim(account, 'k-flight', 'hash-1');
    expect(await idempotency.claim(account, 'k-flight', 'hash-1')).toEqual({ kind: 'in_flight' });
  });

  it('replays the stored response once the first request completed', async () => {
    await idempotency.claim(account, 'k-done', 'hash-1');
    const response = { key: { id: 'ABC', fromMe: true }, note: 'ünïcode' };
    await idempotency.complete(account, 'k-done', 201, response);

    expect(await idempotency.claim(account, 'k-done', 'hash-1')).toEqual({
      kind: 'replay',
      statusCode: 201,
      response,
    });
    // Replaying does not use the record up.
    expect(await idempotency.claim(account, 'k-done', 'hash-1')).toEqual({
      kind: 'replay',
      statusCode: 201,
      response,
    });
  });

  it('refuses the same key with a different request body, in flight or completed', async () => {
    await idempotency.claim(account, 'k-conflict', 'hash-1');
    expect(await idempotency.claim(account, 'k-conflict', 'hash-2')).toEqual({ kind: 'conflict' });
    await idempotency.complete(account, 'k-conflict', 200, { ok: true });
    expect(await idempotency.claim(account, 'k-conflict', 'hash-2')).toEqual({ kind: 'conflict' });
  });

  it('lets the key be claimed again after release (a retryable failure)', async () => {
    await idempotency.claim(account, 'k-release', 'hash-1');
    await idempotency.release(account, 'k-release');
    expect(await idempotency.claim(account, 'k-release', 'hash-1')).toEqual({ kind: 'new' });
    // A different body is fine too: nothing is remembered.
    await idempotency.release(account, 'k-release');
    expect(await idempotency.claim(account, 'k-release', 'hash-2')).toEqual({ kind: 'new' });
  });

  it('keeps a try of unknown outcome (504): its retry gets the key back and knows, once; another body is refused', async () => {
    await idempotency.claim(account, 'k-unknown', 'hash-1');
    await idempotency.releaseUnknown(account, 'k-unknown');
    expect(await idempotency.claim(account, 'k-unknown', 'hash-2')).toEqual({ kind: 'conflict' });
    const [first, second] = await Promise.all([
      idempotency.claim(account, 'k-unknown', 'hash-1'),
      idempotency.claim(account, 'k-unknown', 'hash-1'),
    ]);
    // One retry holds it (in flight again); the other waits its turn, like any claim in flight.
    expect([first, second]).toEqual(
      expect.arrayContaining([{ kind: 'new', afterUnknownOutcome: true }, { kind: 'in_flight' }]),
    );
    await idempotency.complete(account, 'k-unknown', 200, { id: 'M1' });
    await idempotency.releaseUnknown(account, 'k-unknown');
    // A completed answer is never turned back into an unknown one.
    expect(await idempotency.claim(account, 'k-unknown', 'hash-1')).toEqual({
      kind: 'replay',
      statusCode: 200,
      response: { id: 'M1' },
    });
  });

  it(`forgets a record older than ${IDEMPOTENCY_WINDOW_HOURS} h, and keeps a younger one`, async () => {
    await idempotency.claim(account, 'k-young', 'hash-1');
    await idempotency.complete(account, 'k-young', 201, { n: 1 });
    await age(account, 'k-young', IDEMPOTENCY_WINDOW_HOURS - 1);
    expect(await idempotency.claim(account, 'k-young', 'hash-2')).toEqual({ kind: 'conflict' });

    await idempotency.claim(account, 'k-old', 'hash-1');
    await idempotency.complete(account, 'k-old', 201, { n: 1 });
    await age(account, 'k-old', IDEMPOTENCY_WINDOW_HOURS + 1);
    expect(await idempotency.claim(account, 'k-old', 'hash-2')).toEqual({ kind: 'new' });
    expect(await idempotency.claim(account, 'k-old', 'hash-2')).toEqual({ kind: 'in_flight' });
  });

  it('scopes keys to the account', async () => {
    const other = await createAccount(db.dataSource);
    await idempotency.claim(account, 'k-shared', 'hash-1');
    await idempotency.complete(account, 'k-shared', 201, { who: 'first' });
    expect(await idempotency.claim(other, 'k-shared', 'hash-other')).toEqual({ kind: 'new' });
    expect(await idempotency.claim(account, 'k-shared', 'hash-1')).toEqual({
      kind: 'replay',
      statusCode: 201,
      response: { who: 'first' },
    });
  });

  it('sweeps only records older than the window', async () => {
    const swept = await createAccount(db.dataSource);
    await idempotency.claim(swept, 'old-1', 'h');
    await idempotency.claim(swept, 'old-2', 'h');
    await idempotency.claim(swept, 'fresh', 'h');
    await age(swept, 'old-1', IDEMPOTENCY_WINDOW_HOURS + 2);
    await age(swept, 'old-2', IDEMPOTENCY_WINDOW_HOURS + 2);

    expect(await idempotency.sweep()).toBe(2);
    expect(await idempotency.claim(swept, 'fresh', 'h')).toEqual({ kind: 'in_flight' });
    expect(await idempotency.claim(swept, 'old-1', 'h')).toEqual({ kind: 'new' });
    expect(await idempotency.sweep()).toBe(0);
  });

  it('gives exactly one of two concurrent claims of a key from separate connections `new`', async () => {
    const [first, second] = await openExtraDataSources(db.url, 2);
    try {
      const gatewayA = new IdempotencyRepository(first!);
      const gatewayB = new IdempotencyRepository(second!);
      for (let round = 0; round < 20; round++) {
        const key = `k-race-${round}`;
        const claims = await Promise.all([
          gatewayA.claim(account, key, 'hash-1'),
          gatewayB.claim(account, key, 'hash-1'),
        ]);
        expect(claims.map((claim) => claim.kind).sort()).toEqual(['in_flight', 'new']);
      }
      // Also when the key had expired, so both first delete the stale record.
      for (let round = 0; round < 10; round++) {
        const key = `k-race-expired-${round}`;
        await idempotency.claim(account, key, 'hash-0');
        await idempotency.complete(account, key, 201, {});
        await age(account, key, IDEMPOTENCY_WINDOW_HOURS + 1);
        const claims = await Promise.all([
          gatewayA.claim(account, key, 'hash-1'),
          gatewayB.claim(account, key, 'hash-1'),
        ]);
        expect(claims.map((claim) => claim.kind).sort()).toEqual(['in_flight', 'new']);
      }
    } finally {
      await closeAll([first!, second!]);
    }
  });
});
