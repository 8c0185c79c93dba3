import { randomUUID } from 'node:crypto';
import { NetworkCredentialEntity } from '../entities/network-credential.entity';
import { SessionEntity } from '../entities/session.entity';
import { WebhookDeliveryEntity } from '../entities/webhook-delivery.entity';
import { AccountRepository } from '../repositories/account.repository';
import { PlanRepository } from '../repositories/plan.repository';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';

describe('initial schema', () => {
  let db: MigratedTestDatabase;
  let planId: string;
  const newAccount = async () =>
    (await new AccountRepository(db.dataSource).create({ name: 'a', planId })).id;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    planId = (
      await new PlanRepository(db.dataSource).create({ name: 'p', monthlyApiHits: 10, maxSessions: 1 })
    ).id;
  });
  afterAll(() => db.close());

  it('stores every time as timestamptz', async () => {
    const naive = await db.dataSource.query(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND data_type = 'timestamp without time zone'`,
    );
    expect(naive).toEqual([]);
  });

  it('matches the entities: every mapped column exists in its table', async () => {
    const columns = (await db.dataSource.query(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'`,
    )) as Array<{ table_name: string; column_name: string }>;
    const actual = new Set(columns.map((column) => `${column.table_name}.${column.column_name}`));
    const mapped = db.dataSource.entityMetadatas.flatMap((entity) =>
      entity.columns.map((column) => `${entity.tableName}.${column.databaseName}`),
    );
    expect(mapped.filter((column) => !actual.has(column))).toEqual([]);
    // And the other way round: no table column that the entities ignore.
    const mappedSet = new Set(mapped);
    expect(
      [...actual].filter((column) => !column.startsWith('migrations.') && !mappedSet.has(column)),
    ).toEqual([]);
  });

  it("deletes a session's network credentials with the session, and everything with the account", async () => {
    const accountId = await newAccount();
    await db.dataSource
      .getRepository(SessionEntity)
      .insert({ accountId, sessionId: 's1', shard: 0, state: 'connected' });
    await db.dataSource.getRepository(NetworkCredentialEntity).insert([
      { accountId, sessionId: 's1', kind: 'creds', keyId: 'main', value: Buffer.from([0, 1, 2, 255]) },
      { accountId, sessionId: 's1', kind: 'pre-key', keyId: '1', value: Buffer.from('x') },
    ]);
    const stored = await db.dataSource
      .getRepository(NetworkCredentialEntity)
      .findOneByOrFail({ accountId, kind: 'creds' });
    expect(Buffer.compare(stored.value, Buffer.from([0, 1, 2, 255]))).toBe(0);

    await db.dataSource.getRepository(SessionEntity).delete({ accountId, sessionId: 's1' });
    expect(await db.dataSource.getRepository(NetworkCredentialEntity).countBy({ accountId })).toBe(0);

    await db.dataSource
      .getRepository(SessionEntity)
      .insert({ accountId, sessionId: 's2', shard: 0, state: 'starting' });
    await db.dataSource.query(
      `INSERT INTO usage_counters (account_id, period_start) VALUES ($1, '2030-01-01')`,
      [accountId],
    );
    await db.dataSource.query(
      `INSERT INTO send_failures (account_id, session_id, to_address, type, code, message) VALUES ($1, 's2', '255700000000', 'text', 'not_connected', 'x')`,
      [accountId],
    );
    await db.dataSource.query(
      `INSERT INTO webhooks (account_id, url, enabled) VALUES ($1, 'https://example.com/hook', true)`,
      [accountId],
    );
    await db.dataSource.query(`DELETE FROM accounts WHERE id = $1`, [accountId]);
    for (const table of ['sessions', 'usage_counters', 'send_failures', 'webhooks']) {
      const [{ n }] = (await db.dataSource.query(
        `SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`,
        [accountId],
      )) as Array<{
        n: number;
      }>;
      expect({ table, n }).toEqual({ table, n: 0 });
    }
  });

  it('refuses to delete a plan that accounts use', async () => {
    await newAccount();
    await expect(db.dataSource.query(`DELETE FROM plans WHERE id = $1`, [planId])).rejects.toThrow(
      /foreign key/,
    );
  });

  it('records an event once, while manual deliveries (no event id) are unlimited', async () => {
    const accountId = await newAccount();
    const deliveries = db.dataSource.getRepository(WebhookDeliveryEntity);
    const delivery = (eventId: string | null) => ({
      id: randomUUID(),
      accountId,
      eventId,
      event: 'message.received',
      sessionId: 'default',
      url: 'https://example.com/hook',
      status: 'success' as const,
      statusCode: 200,
      error: null,
      response: 'ok',
      durationMs: 12,
      payload: { hello: 'world' },
      createdAt: new Date(),
      attemptedAt: new Date(),
    });
    await deliveries.insert(delivery('event-1'));
    // Once per attempt since retries (migration 1764720000000).
    await expect(deliveries.insert(delivery('event-1'))).rejects.toThrow(
      /webhook_deliveries_event_attempt_key/,
    );
    await deliveries.insert(delivery(null));
    await deliveries.insert(delivery(null));
    expect(await deliveries.countBy({ accountId })).toBe(3);
    await expect(deliveries.insert({ ...delivery(null), status: 'pending' as never })).rejects.toThrow(
      /check/,
    );
  });
});
