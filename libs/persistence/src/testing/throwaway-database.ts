import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface ThrowawayDatabase {
  /** Connection url of the new, empty database. */
  url: string;
  /** Drops it (closing whatever connections are still open). */
  drop(): Promise<void>;
}

/**
 * Creates an empty database `jumbe_test_<random>` on the server of `serverUrl` (any database on
 * it, usually `postgres`), so each test file gets its own schema and tests can run in parallel.
 */
export async function createThrowawayDatabase(serverUrl: string): Promise<ThrowawayDatabase> {
  const name = `jumbe_test_${randomBytes(6).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

async function withClient(url: string, work: (client: Client) => Promise<unknown>): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
