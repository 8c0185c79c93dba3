import { createDataSource } from './data-source';
import { migrate } from './migration-runner';
import { ALL_MIGRATIONS } from './migrations/all-migrations';

type MigrationClass = (typeof ALL_MIGRATIONS)[number];

const migrationName = (migration: MigrationClass): string => new migration().name ?? migration.name;

/**
 * This release's migrations by name, and how to apply some of them to the database at a URL: a
 * restore rebuilds the schema a backup was taken at, then brings it up to this release.
 */
export const schemaMigrations = {
  /** Every migration's name, oldest first. */
  names: ALL_MIGRATIONS.map(migrationName),

  /** Applies those of `names` the database lacks, on a connection of its own; answers the applied ones. */
  async applyTo(url: string, names: readonly string[]): Promise<string[]> {
    const unknown = names.filter((name) => !schemaMigrations.names.includes(name));
    if (unknown.length > 0) throw new Error(`no migration named ${unknown[0]} in this release`);
    const dataSource = createDataSource(url, { applicationName: 'jumbe-migrate', poolSize: 1 });
    dataSource.setOptions({ migrations: ALL_MIGRATIONS.filter((m) => names.includes(migrationName(m))) });
    await dataSource.initialize();
    try {
      return (await migrate(dataSource)).applied;
    } finally {
      await dataSource.destroy();
    }
  },
};
