import {
  ALL_MIGRATIONS,
  createDataSource,
  createThrowawayDatabase,
  migrate,
  schemaMigrations,
  TEST_SERVER_URL,
  type ThrowawayDatabase,
} from '@jumbe/persistence';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Client } from 'pg';
import { backupDatabase } from './database-backup';
import { restoreDatabase } from './database-restore';

const migrationName = (migration: (typeof ALL_MIGRATIONS)[number]) => new migration().name ?? migration.name;

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * A backup taken by an older release (one migration behind this one) restores into an empty
 * database: the schema is rebuilt as it was, the rows loaded, then this release's migration runs.
 */
describe('backupDatabase / restoreDatabase across a release', () => {
  let source: ThrowawayDatabase;
  let target: ThrowawayDatabase;
  let dir: string;
  const older = ALL_MIGRATIONS.slice(0, -1);
  const newest = migrationName(ALL_MIGRATIONS[ALL_MIGRATIONS.length - 1]!);

  beforeAll(async () => {
    [source, target, dir] = await Promise.all([
      createThrowawayDatabase(TEST_SERVER_URL),
      createThrowawayDatabase(TEST_SERVER_URL),
      mkdtemp(join(tmpdir(), 'jumbe-backup-spec-')),
    ]);
    const olderRelease = createDataSource(source.url, { poolSize: 1 });
    olderRelease.setOptions({ migrations: older });
    await olderRelease.initialize();
    await migrate(olderRelease);
    await olderRelease.destroy();
    await query(
      source.url,
      `INSERT INTO plans (name, monthly_api_hits, max_sessions) VALUES ('tab\tand\nnewline', 5, 1)`,
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all([source?.drop(), target?.drop(), rm(dir, { recursive: true, force: true })]);
  });

  it('refuses a truncated file and leaves the database without data', async () => {
    const file = join(dir, 'whole.backup');
    await backupDatabase({ url: source.url, file, secretKey: null, productVersion: 'test' });
    const text = gunzipSync(await readFile(file)).toString('utf8');
    const truncated = join(dir, 'truncated.backup');
    await writeFile(truncated, gzipSync(text.slice(0, text.indexOf('\\.'))));
    await expect(
      restoreDatabase({
        url: target.url,
        file: truncated,
        secretKey: null,
        force: false,
        migrations: schemaMigrations,
      }),
    ).rejects.toThrow(/ends in the middle of table/);
    expect(await query(target.url, 'SELECT * FROM plans')).toEqual([]);
  });

  it('restores the rows exactly, then applies the migrations the backup predates', async () => {
    const file = join(dir, 'older.backup');
    const summary = await backupDatabase({ url: source.url, file, secretKey: null, productVersion: 'test' });
    expect(summary.migrations).toBe(older.length);

    const restored = await restoreDatabase({
      url: target.url,
      file,
      secretKey: null,
      force: false,
      migrations: schemaMigrations,
    });
    expect(restored.migrationsApplied).toEqual([newest]);
    expect(restored.secretKey).toBe('not-recorded');
    expect(await query(target.url, 'SELECT name FROM plans')).toEqual([{ name: 'tab\tand\nnewline' }]);
    const applied = await query<{ name: string }>(target.url, 'SELECT name FROM migrations ORDER BY id');
    expect(applied.map((row) => row.name)).toEqual(ALL_MIGRATIONS.map(migrationName));
  });
});
