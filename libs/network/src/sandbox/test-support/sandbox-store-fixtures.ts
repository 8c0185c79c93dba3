import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { createRedisClient, waitForRedisReady } from '@jumbe/coordination';
import { MemorySandboxStore } from '../memory-sandbox-store';
import { RedisSandboxStore, SANDBOX_KEY_PREFIX } from '../redis-sandbox-store';
import type { SandboxOutboxEntry, SandboxStore } from '../sandbox-store';

/** The shared Redis of the test environment. Tests never flush it: their keys live under a unique prefix. */
export const TEST_REDIS_URL = process.env['JUMBE_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** The n-th text a session sent, as the outbox keeps it. */
export function outboxEntry(n: number): SandboxOutboxEntry {
  return {
    id: `3EB0${String(n).padStart(16, '0')}`,
    to: 'x@s.whatsapp.net',
    type: 'text',
    content: { text: `m${n}` },
    createdAt: '2026-03-01T10:00:00.000Z',
  };
}

/** Two handles on one simulated network, as two workers of a deployment have. */
export interface SandboxStorePair {
  first: SandboxStore;
  second: SandboxStore;
}

/** Test-only: hands out store pairs of one kind and removes whatever they left behind. */
export interface SandboxStoreKind {
  name: string;
  pair(): Promise<SandboxStorePair>;
  cleanUp(): Promise<void>;
}

export function memoryStores(): SandboxStoreKind {
  return {
    name: 'MemorySandboxStore',
    pair: async () => {
      const store = new MemorySandboxStore();
      return { first: store, second: store };
    },
    cleanUp: async () => undefined,
  };
}

/** Each pair gets a namespace of its own under one per-run prefix; its two stores use two connections. */
export function redisStores(): SandboxStoreKind {
  const runPrefix = `${SANDBOX_KEY_PREFIX}test-${randomUUID()}:`;
  const clients: Redis[] = [];
  let connections: Promise<[Redis, Redis]> | undefined;
  let pairs = 0;

  const connect = async (label: string): Promise<Redis> => {
    // Auto-pipelined, as the store's client is in production (start-infrastructure).
    const client = createRedisClient(
      TEST_REDIS_URL,
      `jumbe-test-sandbox-${label}-${randomUUID().slice(0, 8)}`,
      undefined,
      undefined,
      { autoPipelining: true },
    );
    clients.push(client);
    await waitForRedisReady(client, 5_000);
    return client;
  };

  return {
    name: 'RedisSandboxStore',
    pair: async () => {
      const prefix = `${runPrefix}${(pairs += 1)}:`;
      connections ??= Promise.all([connect('1'), connect('2')]);
      const [one, two] = await connections;
      return { first: new RedisSandboxStore(one, prefix), second: new RedisSandboxStore(two, prefix) };
    },
    cleanUp: async () => {
      const [client] = clients;
      if (client) {
        let cursor = '0';
        do {
          const [next, keys] = await client.scan(cursor, 'MATCH', `${runPrefix}*`, 'COUNT', 500);
          if (keys.length > 0) await client.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      }
      connections = undefined;
      await Promise.all(clients.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
