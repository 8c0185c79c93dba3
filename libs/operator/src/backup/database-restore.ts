import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { SchemaMigrations } from '../ports/schema-migrations';
import { type BackupHeader, backupHeaderSchema, END_OF_TABLE } from './backup-header';
import { columnList, quoteIdentifier, tablesInDependencyOrder } from './database-tables';
import { secretKeyFingerprint } from './secret-key-fingerprint';

export interface RestoreOptions {
  /** The database to restore into: empty, or any Jumbe database with `force`. */
  url: string;
  file: string;
  /** The JUMBE_SECRET_KEY the restored installation will run with, when known. */
  secretKey: string | null;
  /** Replace the data of a database that has some, and accept a different secret key. */
  force: boolean;
  /** This release's migrations: the backup's schema is rebuilt with them, then brought up to date. */
  migrations: SchemaMigrations;
}

/**
 * Whether the restored installation can open the sealed values (WhatsApp credentials, webhook
 * secrets): `matches`; `missing` when no key was found (copy the old one into place before
 * starting); `different` (only with force); `not-recorded` when the backup does not say.
 */
export type SecretKeyCheck = 'matches' | 'missing' | 'different' | 'not-recorded';

export interface RestoreSummary {
  file: string;
  backupCreatedAt: string;
  tables: Array<{ name: string; rows: number }>;
  /** Migrations newer than the backup, applied after loading it. */
  migrationsApplied: string[];
  secretKey: SecretKeyCheck;
}

/**
 * Loads a backup made by `backupDatabase`: rebuilds the schema the backup was taken at by running
 * the migrations it lists, loads every table in one transaction (all of it or nothing), sets the
 * sequences past the restored ids, then applies the migrations this release adds.
 */
export async function restoreDatabase(options: RestoreOptions): Promise<RestoreSummary> {
  const lines = backupLines(options.file);
  try {
    const header = await readHeader(lines, options.file, options.migrations);
    const secretKey = checkSecretKey(header, options);
    const client = new Client({ connectionString: options.url, application_name: 'jumbe-restore' });
    await client.connect();
    try {
      await prepareSchema(client, options, header);
      await loadTables(client, header, lines);
    } finally {
      await client.end();
    }
    const migrationsApplied = await options.migrations.applyTo(options.url, options.migrations.names);
    return {
      file: options.file,
      backupCreatedAt: header.createdAt,
      tables: header.tables.map(({ name, rows }) => ({ name, rows })),
      migrationsApplied,
      secretKey,
    };
  } finally {
    await lines.return?.();
  }
}

type Lines = AsyncIterator<string>;

function backupLines(file: string): Lines {
  const input = createReadStream(file).pipe(createGunzip());
  // COPY text format escapes carriage returns and newlines inside values, so every raw line
  // break in the file ends a row.
  return createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
}

async function readHeader(lines: Lines, file: string, migrations: SchemaMigrations): Promise<BackupHeader> {
  const first = await lines.next().catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'Z_DATA_ERROR') throw new Error(`${file} is not a Jumbe backup (not gzip)`);
    throw error;
  });
  let header: unknown;
  try {
    header = JSON.parse(first.done ? '' : first.value);
  } catch {
    throw new Error(`${file} is not a Jumbe backup (no header line)`);
  }
  const parsed = backupHeaderSchema.safeParse(header);
  if (!parsed.success) throw new Error(`${file} is not a Jumbe backup this release can read`);
  const known = new Set(migrations.names);
  const unknown = parsed.data.migrations.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `the backup was made by a newer Jumbe (${parsed.data.productVersion}, migration ${unknown[0]}); restore it with that release or a later one`,
    );
  }
  return parsed.data;
}

function checkSecretKey(header: BackupHeader, options: RestoreOptions): SecretKeyCheck {
  if (header.secretKeyFingerprint === null) return 'not-recorded';
  if (options.secretKey === null) return 'missing';
  if (secretKeyFingerprint(options.secretKey) === header.secretKeyFingerprint) return 'matches';
  if (options.force) return 'different';
  throw new Error(
    'the backup was made with a different JUMBE_SECRET_KEY (secret.key): with this key its WhatsApp credentials and webhook secrets cannot be opened. Use the original key, or --force to restore anyway',
  );
}

/**
 * Brings the target to the schema the backup was taken at. It must be empty (a fresh data
 * directory or database): with `force`, Jumbe's tables are dropped first.
 */
async function prepareSchema(client: Client, options: RestoreOptions, header: BackupHeader): Promise<void> {
  const existing = await tablesInDependencyOrder(client);
  if (options.force) {
    if (existing.length > 0) {
      await client.query(
        `DROP TABLE ${existing.map((table) => quoteIdentifier(table.name)).join(', ')} CASCADE`,
      );
    }
  } else {
    for (const table of existing) {
      if (table.name === 'migrations') continue;
      const { rowCount } = await client.query(`SELECT 1 FROM ${quoteIdentifier(table.name)} LIMIT 1`);
      if (rowCount !== 0) {
        throw new Error(
          `the database already holds data (table ${table.name}); restore into a fresh data directory or database, or use --force to replace its data`,
        );
      }
    }
  }
  const applied = options.force ? [] : await appliedMigrations(client, existing);
  const beyond = applied.filter((name) => !header.migrations.includes(name));
  if (beyond.length > 0) {
    throw new Error(
      `the database's schema is newer than the backup's (migration ${beyond[0]}); restore into a fresh data directory or database, or use --force`,
    );
  }
  const { migrations } = options;
  await migrations.applyTo(
    options.url,
    migrations.names.filter((name) => header.migrations.includes(name)),
  );
}

/** Every table in one transaction: a backup that fails half-way leaves the database as it was. */
async function loadTables(client: Client, header: BackupHeader, lines: Lines): Promise<void> {
  await client.query('BEGIN');
  try {
    const present = new Set((await tablesInDependencyOrder(client)).map((table) => table.name));
    const missing = header.tables.find((table) => !present.has(table.name));
    if (missing) throw new Error(`the backup has table ${missing.name}, which its migrations do not create`);
    await client.query(`TRUNCATE ${header.tables.map((table) => quoteIdentifier(table.name)).join(', ')}`);
    for (const table of header.tables) {
      const copy = client.query(
        copyFrom(`COPY ${quoteIdentifier(table.name)} (${columnList(table.columns)}) FROM STDIN`),
      );
      await pipeline(rowsOf(lines, table.name), copy);
      if (copy.rowCount !== table.rows) {
        throw new Error(
          `table ${table.name}: the backup says ${table.rows} rows, ${copy.rowCount} were read`,
        );
      }
      await advanceSequences(client, table);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

async function* rowsOf(lines: Lines, table: string): AsyncGenerator<string> {
  for (;;) {
    const line = await lines.next();
    if (line.done) throw new Error(`the backup ends in the middle of table ${table} (truncated file?)`);
    if (line.value === END_OF_TABLE) return;
    yield `${line.value}\n`;
  }
}

/** A serial column's sequence continues after the restored ids (e.g. the migrations table's). */
async function advanceSequences(client: Client, table: { name: string; columns: string[] }): Promise<void> {
  for (const column of table.columns) {
    const { rows } = await client.query<{ sequence: string | null }>(
      'SELECT pg_get_serial_sequence($1, $2) AS sequence',
      [quoteIdentifier(table.name), column],
    );
    const sequence = rows[0]?.sequence;
    if (!sequence) continue;
    await client.query(
      `SELECT setval($1, COALESCE((SELECT max(${quoteIdentifier(column)}) FROM ${quoteIdentifier(table.name)}), 0) + 1, false)`,
      [sequence],
    );
  }
}

async function appliedMigrations(client: Client, tables: Array<{ name: string }>): Promise<string[]> {
  if (!tables.some((table) => table.name === 'migrations')) return [];
  const { rows } = await client.query<{ name: string }>('SELECT name FROM migrations ORDER BY id');
  return rows.map((row) => row.name);
}
