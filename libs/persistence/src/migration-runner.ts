import { DataSource, MigrationExecutor, type QueryRunner } from 'typeorm';
import { MIGRATIONS_TABLE } from './data-source';
import { SchemaBehindError, SchemaTooNewError } from './schema-errors';

/**
 * Key of the session-level advisory lock held while migrating. Any fixed bigint works as long as
 * nothing else in the database uses it; this one is "jumbe" in ASCII.
 */
export const MIGRATION_LOCK_KEY = '440487371621';

/**
 * Applies pending migrations, once, however many processes call it at the same time: each takes
 * the advisory lock on one dedicated connection, and the ones that wait find nothing left to do.
 * Migrations run on that same connection, in one transaction, so a pool of size 1 is enough.
 */
export async function migrate(dataSource: DataSource): Promise<{ applied: string[] }> {
  const queryRunner = dataSource.createQueryRunner();
  await queryRunner.connect();
  try {
    await queryRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const unknown = unknownMigrations(dataSource, await appliedMigrationNames(queryRunner));
      if (unknown.length > 0) throw new SchemaTooNewError(unknown);
      const executor = new MigrationExecutor(dataSource, queryRunner);
      executor.transaction = 'all';
      const applied = await executor.executePendingMigrations();
      return { applied: applied.map((migration) => migration.name) };
    } finally {
      await queryRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await queryRunner.release();
  }
}

/**
 * For processes that must not migrate: throws `SchemaTooNewError` when the database has migrations
 * this code does not know, `SchemaBehindError` when some of this code's migrations are missing.
 */
export async function assertSchemaCurrent(dataSource: DataSource): Promise<void> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    const applied = await appliedMigrationNames(queryRunner);
    const unknown = unknownMigrations(dataSource, applied);
    if (unknown.length > 0) throw new SchemaTooNewError(unknown);
    const pending = knownMigrationNames(dataSource).filter((name) => !applied.includes(name));
    if (pending.length > 0) throw new SchemaBehindError(pending);
  } finally {
    await queryRunner.release();
  }
}

function knownMigrationNames(dataSource: DataSource): string[] {
  return dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name);
}

function unknownMigrations(dataSource: DataSource, applied: string[]): string[] {
  const known = new Set(knownMigrationNames(dataSource));
  return applied.filter((name) => !known.has(name));
}

/** Names recorded in the migrations table; none when it does not exist yet (a fresh database). */
async function appliedMigrationNames(queryRunner: QueryRunner): Promise<string[]> {
  const [{ exists }] = (await queryRunner.query('SELECT to_regclass($1) IS NOT NULL AS exists', [
    MIGRATIONS_TABLE,
  ])) as Array<{ exists: boolean }>;
  if (!exists) return [];
  const rows = (await queryRunner.query(`SELECT name FROM "${MIGRATIONS_TABLE}" ORDER BY id`)) as Array<{
    name: string;
  }>;
  return rows.map((row) => row.name);
}
