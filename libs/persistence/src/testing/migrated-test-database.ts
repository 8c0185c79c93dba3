import type { DataSource } from 'typeorm';
import { createDataSource } from '../data-source';
import { migrate } from '../migration-runner';
import { createThrowawayDatabase } from './throwaway-database';

/** The PostgreSQL server tests run against (CI runs one on 127.0.0.1:5432 with trust auth). */
export const TEST_SERVER_URL =
  process.env['JUMBE_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface MigratedTestDatabase {
  dataSource: DataSource;
  url: string;
  /** Closes the DataSource and drops the database. */
  close(): Promise<void>;
}

/** A throwaway database with the schema applied and an initialised DataSource on it. */
export async function openMigratedTestDatabase(): Promise<MigratedTestDatabase> {
  const database = await createThrowawayDatabase(TEST_SERVER_URL);
  const dataSource = createDataSource(database.url, {
    poolSize: 4,
    applicationName: 'jumbe-persistence-test',
  });
  await dataSource.initialize();
  await migrate(dataSource);
  return {
    dataSource,
    url: database.url,
    close: async () => {
      await dataSource.destroy();
      await database.drop();
    },
  };
}
