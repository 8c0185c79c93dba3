import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { closeRedisClient } from '../close-redis-client';
import { createRedisClient } from '../redis-client';
import { waitForRedisReady } from '../wait-for-redis-ready';

// The waiting helpers live in @jumbe/testing; re-exported for the specs that import them from here.
export { delay, eventually } from '@jumbe/testing';

/** The shared Redis of the test environment. Tests never flush it: every key they use is unique. */
export const TEST_REDIS_URL = process.env['JUMBE_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/**
 * Test-only: hands out ready Redis clients with unique CLIENT names and closes them all at the
 * end, so a failing test cannot leave connections that keep Jest alive.
 */
/** createRedisClient's options (the request path's stores are auto-pipelined in production). */
type ClientOptions = Parameters<typeof createRedisClient>[4];

export class RedisTestClients {
  private readonly clients: Redis[] = [];

  async connect(label: string, url: string = TEST_REDIS_URL, options: ClientOptions = {}): Promise<Redis> {
    const client = this.create(label, url, options);
    await waitForRedisReady(client, 5_000);
    return client;
  }

  /** A client that may never connect (e.g. pointed at a closed port); not waited for. */
  create(label: string, url: string = TEST_REDIS_URL, options: ClientOptions = {}): Redis {
    const client = createRedisClient(url, uniqueClientName(label), undefined, undefined, options);
    this.clients.push(client);
    return client;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.clients.splice(0).map(closeRedisClient));
  }
}

export function uniqueClientName(label: string): string {
  return `jumbe-test-${label}-${randomUUID().slice(0, 8)}`;
}

/** The server-side id of the connection with this CLIENT name, looked up from another connection. */
export async function serverClientId(observer: Redis, clientName: string): Promise<string> {
  const list = (await observer.client('LIST')) as string;
  for (const line of list.split('\n')) {
    const fields = Object.fromEntries(line.split(' ').map((pair) => pair.split('=', 2) as [string, string]));
    if (fields['name'] === clientName) return fields['id'] as string;
  }
  throw new Error(`no Redis connection named ${clientName}`);
}
