import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const TEST_POSTGRES_URL =
  process.env['JUMBE_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh database on the test PostgreSQL server, dropped by `drop()`. */
export class ThrowawayDatabase {
  private constructor(
    readonly name: string,
    readonly url: string,
  ) {}

  static async create(prefix = 'jumbe_e2e'): Promise<ThrowawayDatabase> {
    const name = `${prefix}_${randomBytes(6).toString('hex')}`;
    await withAdminClient((client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(TEST_POSTGRES_URL);
    url.pathname = `/${name}`;
    return new ThrowawayDatabase(name, url.toString());
  }

  async drop(): Promise<void> {
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`));
  }
}

async function withAdminClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
