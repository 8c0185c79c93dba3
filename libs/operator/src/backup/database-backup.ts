import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { type BackupHeader, END_OF_TABLE } from './backup-header';
import { columnList, quoteIdentifier, tablesInDependencyOrder } from './database-tables';
import { secretKeyFingerprint } from './secret-key-fingerprint';

export interface BackupOptions {
  /** The database to back up (the embedded one of a running all-in-one, or any other). */
  url: string;
  /** Where the backup goes; written beside it first and renamed, so it is never left half-written. */
  file: string;
  /** The JUMBE_SECRET_KEY in use, when known: the backup records its fingerprint (never the key). */
  secretKey: string | null;
  productVersion: string;
}

export interface BackupSummary {
  file: string;
  createdAt: string;
  migrations: number;
  tables: Array<{ name: string; rows: number }>;
}

/**
 * Backs up every row of Jumbe's database, the migrations table included, through an ordinary
 * connection: the embedded PostgreSQL ships no `pg_dump`, and a system one older than the server
 * refuses it. One REPEATABLE READ transaction reads every table, so the backup is one consistent
 * snapshot while the service keeps running. The schema itself is not copied: restore rebuilds it
 * by running the same migrations.
 *
 * The file is gzip: a JSON header line, then each table's rows in COPY text format, each table
 * ended by `\.`. It holds key hashes and sealed credentials, so it is created readable by its
 * owner only.
 */
export async function backupDatabase(options: BackupOptions): Promise<BackupSummary> {
  const client = new Client({ connectionString: options.url, application_name: 'jumbe-backup' });
  await client.connect();
  const partial = `${options.file}.partial`;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const header = await readHeader(client, options);
    await pipeline(
      async function* () {
        yield `${JSON.stringify(header)}\n`;
        for (const table of header.tables) {
          yield* client.query(
            copyTo(`COPY ${quoteIdentifier(table.name)} (${columnList(table.columns)}) TO STDOUT`),
          );
          yield `${END_OF_TABLE}\n`;
        }
      },
      createGzip(),
      createWriteStream(partial, { mode: 0o600 }),
    );
    await client.query('COMMIT');
    await rename(partial, options.file);
    return {
      file: options.file,
      createdAt: header.createdAt,
      migrations: header.migrations.length,
      tables: header.tables.map(({ name, rows }) => ({ name, rows })),
    };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    await client.end();
  }
}

async function readHeader(client: Client, options: BackupOptions): Promise<BackupHeader> {
  const layouts = await tablesInDependencyOrder(client);
  if (!layouts.some((table) => table.name === 'migrations')) {
    throw new Error('the database has no Jumbe schema to back up (no migrations table)');
  }
  const migrations = await client.query<{ name: string }>('SELECT name FROM migrations ORDER BY id');
  const tables = [];
  for (const layout of layouts) {
    const { rows } = await client.query<{ count: string }>(
      `SELECT count(*) AS count FROM ${quoteIdentifier(layout.name)}`,
    );
    // count(*) without GROUP BY always returns exactly one row.
    const [{ count }] = rows;
    tables.push({ ...layout, rows: Number(count) });
  }
  return {
    format: 'jumbe-backup',
    version: 1,
    createdAt: new Date().toISOString(),
    productVersion: options.productVersion,
    migrations: migrations.rows.map((row) => row.name),
    secretKeyFingerprint: options.secretKey === null ? null : secretKeyFingerprint(options.secretKey),
    tables,
  };
}
