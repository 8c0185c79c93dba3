import { SecretBox } from '@jumbe/domain';
import { Client } from 'pg';
import { quoteIdentifier } from '../backup/database-tables';
import { type SealedColumn, SEALED_COLUMNS } from './sealed-columns';

export interface SecretKeyRotationOptions {
  url: string;
  /** The key the values are sealed with now. */
  currentKey: string;
  newKey: string;
  /** Rotate even though Jumbe services are connected to the database. */
  force: boolean;
}

export interface SecretKeyRotationSummary {
  resealed: Array<{ table: string; column: string; rows: number }>;
}

/** The application names Jumbe's services connect with (`jumbe-<service>`). */
const SERVICE_CONNECTIONS = [
  'jumbe-gateway',
  'jumbe-session-worker',
  'jumbe-webhook-dispatcher',
  'jumbe-all-in-one',
];

/**
 * Re-seals every sealed value (WhatsApp credentials, kept messages, webhook secrets) from the
 * current JUMBE_SECRET_KEY to a new one, in one transaction: all values move to the new key, or
 * none does. No number has to be linked again. Services hold the key in memory, so they must be
 * stopped meanwhile and started with the new key afterwards; the rotation refuses to run while
 * any is connected.
 */
export async function rotateSecretKey(options: SecretKeyRotationOptions): Promise<SecretKeyRotationSummary> {
  if (options.newKey === options.currentKey) throw new Error('the new secret key is the current one');
  if (options.newKey.length < 32) throw new Error('the new secret key must be at least 32 characters');
  const client = new Client({ connectionString: options.url, application_name: 'jumbe-secret-key-rotation' });
  await client.connect();
  try {
    if (!options.force) await refuseWhileServicesRun(client);
    await client.query('BEGIN');
    try {
      // Writers wait until the end; a service that was missed cannot seal with the old key meanwhile.
      const tables = SEALED_COLUMNS.map((sealed) => quoteIdentifier(sealed.table)).join(', ');
      await client.query(`LOCK TABLE ${tables} IN EXCLUSIVE MODE`);
      const resealed = [];
      for (const sealed of SEALED_COLUMNS) {
        resealed.push({
          table: sealed.table,
          column: sealed.column,
          rows: await reseal(client, sealed, options),
        });
      }
      await client.query('COMMIT');
      return { resealed };
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  } finally {
    await client.end();
  }
}

async function refuseWhileServicesRun(client: Client): Promise<void> {
  const { rows } = await client.query<{ name: string; connections: string }>(
    `SELECT application_name AS name, count(*) AS connections FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = ANY($1) GROUP BY application_name`,
    [SERVICE_CONNECTIONS],
  );
  if (rows.length === 0) return;
  const running = rows.map((row) => `${row.name.replace(/^jumbe-/, '')} (${row.connections} connections)`);
  throw new Error(
    `Jumbe services are connected to the database: ${running.join(', ')}. They hold the current key in memory: stop them all, rotate, then start them with the new key (--force to rotate anyway)`,
  );
}

async function reseal(
  client: Client,
  sealed: SealedColumn,
  options: SecretKeyRotationOptions,
): Promise<number> {
  const current = new SecretBox(options.currentKey, sealed.purpose);
  const next = new SecretBox(options.newKey, sealed.purpose);
  const keys = sealed.key.map(quoteIdentifier);
  const column = quoteIdentifier(sealed.column);
  const table = quoteIdentifier(sealed.table);
  const { rows } = await client.query<Record<string, string> & { sealed: Buffer | string }>(
    `SELECT ${keys.map((key) => `${key}::text`).join(', ')}, ${column} AS sealed FROM ${table} WHERE ${column} IS NOT NULL`,
  );
  const where = keys.map((key, index) => `${key}::text = $${index + 2}`).join(' AND ');
  for (const row of rows) {
    const binding = sealed.binding(row);
    const bytes =
      sealed.encoding === 'bytes' ? (row.sealed as Buffer) : Buffer.from(row.sealed as string, 'base64url');
    let plain: Buffer;
    try {
      plain = current.openBytes(bytes, binding);
    } catch {
      throw new Error(
        `a value in ${sealed.table} (${sealed.key.map((key) => row[key]).join(', ')}) does not open with the current key: is it the key Jumbe runs with? Nothing was changed`,
      );
    }
    const resealed = next.sealBytes(plain, binding);
    await client.query(`UPDATE ${table} SET ${column} = $1 WHERE ${where}`, [
      sealed.encoding === 'bytes' ? resealed : resealed.toString('base64url'),
      ...sealed.key.map((key) => row[key]),
    ]);
  }
  return rows.length;
}
