import { apiClient, type ApiClient, ServiceProcess, ThrowawayDatabase } from '@jumbe/testing';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REDIS_URL = process.env['JUMBE_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const NATS_URL = process.env['JUMBE_TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** A running Jumbe deployment as the tests see it: gateway URLs and the operator token. */
export interface Topology {
  name: string;
  gateways: ApiClient[];
  processes: ServiceProcess[];
  adminToken: string;
  stop(): Promise<void>;
}

const newAdminToken = () => `admin_${randomBytes(16).toString('hex')}`;

/** `npm start` as a newcomer runs it: one process, embedded PostgreSQL, in-process bus and memory. */
export async function startAllInOne(extraEnv: Record<string, string> = {}): Promise<Topology> {
  const dataDir = await mkdtemp(join(tmpdir(), 'jumbe-e2e-'));
  const adminToken = newAdminToken();
  const process = await ServiceProcess.start(
    'all-in-one',
    { JUMBE_DATA_DIR: dataDir, JUMBE_ADMIN_TOKEN: adminToken, JUMBE_NETWORK: 'sandbox', ...extraEnv },
    { timeoutMs: 120_000 },
  );
  return {
    name: 'all-in-one',
    gateways: [apiClient(process.url)],
    processes: [process],
    adminToken,
    stop: async () => {
      await process.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface DistributedTopology extends Topology {
  env: Record<string, string>;
  workers: ServiceProcess[];
}

/** Production shape: gateways and workers as separate processes on the real PostgreSQL, Redis and NATS. */
export async function startDistributed(
  gatewayCount = 2,
  extraEnv: Record<string, string> = {},
  workerCount = 0,
): Promise<DistributedTopology> {
  const database = await ThrowawayDatabase.create();
  const adminToken = newAdminToken();
  const env = {
    JUMBE_DATABASE_URL: database.url,
    JUMBE_REDIS_URL: REDIS_URL,
    JUMBE_NATS_URL: NATS_URL,
    JUMBE_SECRET_KEY: randomBytes(32).toString('base64url'),
    JUMBE_ADMIN_TOKEN: adminToken,
    JUMBE_NETWORK: 'sandbox',
    ...extraEnv,
  };
  const processes: ServiceProcess[] = [];
  try {
    // Gateways start together, as replicas do: the migration runs once under its advisory lock.
    processes.push(
      ...(await Promise.all(
        Array.from({ length: gatewayCount }, (_, i) =>
          ServiceProcess.start('gateway', env, { name: `gateway-${i + 1}` }),
        ),
      )),
    );
    for (let i = 0; i < workerCount; i += 1) {
      processes.push(await ServiceProcess.start('session-worker', env, { name: `worker-${i + 1}` }));
    }
    // Workers take their shards within a second or two of starting; wait until every shard is served.
    if (workerCount > 0) await waitForAllShardsServed(processes);
  } catch (error) {
    await Promise.all(processes.map((p) => p.stop()));
    await database.drop();
    throw error;
  }
  return {
    name: 'distributed',
    env,
    gateways: processes.filter((p) => p.name.startsWith('gateway')).map((p) => apiClient(p.url)),
    workers: processes.filter((p) => p.name.startsWith('worker')),
    processes,
    adminToken,
    stop: async () => {
      await Promise.all(processes.map((p) => p.stop()));
      await database.drop();
      await clearSandboxState();
    },
  };
}

/** The sandbox keeps its simulated phones in Redis in this topology; each run starts from none. */
async function clearSandboxState(): Promise<void> {
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys('jumbe:sandbox:*');
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** Waits until the workers' logs show all 64 shards spread over all of them. */
async function waitForAllShardsServed(processes: ServiceProcess[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const counts = processes.filter((p) => p.name.startsWith('worker')).map((p) => lastShardCount(p.logs()));
    // Every worker has its share and together they hold them all: the assignment has settled.
    if (counts.every((count) => count > 0) && counts.reduce((sum, count) => sum + count, 0) === 64) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('workers did not take all shards in time');
}

function lastShardCount(logs: string): number {
  const matches = [...logs.matchAll(/"shardsHeld":(\d+)/g)];
  return matches.length > 0 ? Number(matches[matches.length - 1]![1]) : 0;
}
