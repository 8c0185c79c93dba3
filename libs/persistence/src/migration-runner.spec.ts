import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source';
import { assertSchemaCurrent, migrate } from './migration-runner';
import { ALL_MIGRATIONS } from './migrations/all-migrations';
import { SchemaBehindError, SchemaTooNewError } from './schema-errors';
import { TEST_SERVER_URL } from './testing/migrated-test-database';
import { createThrowawayDatabase, type ThrowawayDatabase } from './testing/throwaway-database';

/** Every migration's name, oldest first: what a fresh database gets applied. */
const ALL = ALL_MIGRATIONS.map((migration) => new migration().name);

describe('migrate', () => {
  let database: ThrowawayDatabase;
  const open: DataSource[] = [];

  async function connect(): Promise<DataSource> {
    const dataSource = createDataSource(database.url, { poolSize: 2 });
    await dataSource.initialize();
    open.push(dataSource);
    return dataSource;
  }

  beforeEach(async () => {
    database = await createThrowawayDatabase(TEST_SERVER_URL);
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((dataSource) => dataSource.destroy()));
    await database.drop();
  });

  it('applies the schema once, then has nothing to do', async () => {
    const dataSource = await connect();
    expect(await migrate(dataSource)).toEqual({ applied: ALL });
    expect(await migrate(dataSource)).toEqual({ applied: [] });

    const tables = (await dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    )) as Array<{ table_name: string }>;
    expect(tables.map((row) => row.table_name)).toEqual([
      'accounts',
      'api_keys',
      'dashboard_operator_sessions',
      'dashboard_sessions',
      'deployment_settings',
      'idempotency_records',
      'inbound_events',
      'inbound_media',
      'inbound_outbox',
      'migrations',
      'network_credentials',
      'plans',
      'received_messages',
      'send_failures',
      'sent_messages',
      'session_call_settings',
      'session_proxies',
      'sessions',
      'usage_counters',
      'usage_daily',
      'webhook_deliveries',
      'webhooks',
    ]);
    await expect(assertSchemaCurrent(dataSource)).resolves.toBeUndefined();
  });

  it('lets exactly one of several processes starting together migrate', async () => {
    const dataSources = await Promise.all([connect(), connect(), connect()]);
    const results = await Promise.all(dataSources.map((dataSource) => migrate(dataSource)));
    expect(results.map((result) => result.applied).sort()).toEqual([[], [], ALL]);
    const recorded = (await dataSources[0].query('SELECT name FROM migrations')) as Array<{ name: string }>;
    expect(recorded.map((row) => row.name).sort()).toEqual([...ALL].sort());
  });

  it('releases the advisory lock afterwards, even when it refuses', async () => {
    const dataSource = await connect();
    await migrate(dataSource);
    await dataSource.query(
      `INSERT INTO migrations (timestamp, name) VALUES (1800000000000, 'Future1800000000000')`,
    );
    await expect(migrate(dataSource)).rejects.toBeInstanceOf(SchemaTooNewError);
    const held = (await dataSource.query(`SELECT count(*)::int AS n FROM pg_locks
        WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)) as Array<{
      n: number;
    }>;
    expect(held[0].n).toBe(0);
  });

  it('refuses a database migrated by a newer release, naming the unknown migrations', async () => {
    const dataSource = await connect();
    await migrate(dataSource);
    await dataSource.query(
      `INSERT INTO migrations (timestamp, name) VALUES (1800000000000, 'Future1800000000000')`,
    );

    const error = await migrate(dataSource).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SchemaTooNewError);
    expect((error as SchemaTooNewError).unknownMigrations).toEqual(['Future1800000000000']);
    await expect(assertSchemaCurrent(dataSource)).rejects.toBeInstanceOf(SchemaTooNewError);
  });

  it('reports a database that is behind to processes that must not migrate', async () => {
    const dataSource = await connect();
    const error = await assertSchemaCurrent(dataSource).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SchemaBehindError);
    expect((error as SchemaBehindError).pendingMigrations).toEqual(ALL);
  });

  it('can be reverted by the migrations down()', async () => {
    const dataSource = await connect();
    await migrate(dataSource);
    for (let i = 0; i < ALL.length; i += 1) await dataSource.undoLastMigration();
    const tables = (await dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
    )) as Array<{ table_name: string }>;
    expect(tables.map((row) => row.table_name)).toEqual(['migrations']);
    expect(await migrate(dataSource)).toEqual({ applied: ALL });
  });

  it('gives up connecting after about 5 s when the server does not answer', async () => {
    // A server that accepts connections and never says anything, like a hung database.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const dataSource = createDataSource(`postgres://postgres@127.0.0.1:${port}/jumbe`);
      const started = Date.now();
      await expect(dataSource.initialize()).rejects.toThrow(/timeout/i);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(4_500);
      expect(elapsed).toBeLessThan(8_000);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 15_000);
});
