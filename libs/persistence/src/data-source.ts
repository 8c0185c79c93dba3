import { DataSource } from 'typeorm';
import { ALL_ENTITIES } from './entities/all-entities';
import { ALL_MIGRATIONS } from './migrations/all-migrations';
import { StorableTextClient } from './storable/storable-text-client';

export interface DataSourceOptions {
  /** Most connections the pool opens (node-postgres defaults to 10). */
  poolSize?: number;
  /** Shown in `pg_stat_activity`, to tell the services' connections apart. */
  applicationName?: string;
}

/** The table TypeORM records applied migrations in. */
export const MIGRATIONS_TABLE = 'migrations';

/**
 * A DataSource for Jumbe's PostgreSQL database. Not initialised: the caller calls `initialize()`.
 *
 * The schema only ever changes through `migrate()` (never `synchronize`, never on connect), so
 * several services starting together cannot race to alter it.
 */
export function createDataSource(url: string, options: DataSourceOptions = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ALL_ENTITIES,
    migrations: ALL_MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    // The migrations create what they need; nothing should run DDL just because we connected.
    installExtensions: false,
    poolSize: options.poolSize,
    applicationName: options.applicationName,
    // A dead or unreachable database fails a request (and the health check) within 5 s instead of
    // queueing callers forever.
    connectTimeoutMS: 5_000,
    // Every value bound to a query is made storable (NUL, lone surrogates): see storable-text.ts.
    extra: { Client: StorableTextClient },
  });
}
