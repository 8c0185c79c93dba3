import { connect } from 'nats';
import Redis from 'ioredis';
import { eventStreamName, mediaBucketName } from '@jumbe/contracts';
import { createThrowawayDatabase, TEST_SERVER_URL } from '@jumbe/persistence';
import { apiClient, type ApiClient, ServiceProcess } from '@jumbe/testing';
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
export async function startAllInOne(
  extraEnv: Record<string, string> = {},
): Promise<Topology & { dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'jumbe-e2e-'));
  const adminToken = newAdminToken();
  const process = await ServiceProcess.start(
    'all-in-one',
    { JUMBE_DATA_DIR: dataDir, JUMBE_ADMIN_TOKEN: adminToken, JUMBE_NETWORK: 'sandbox', ...extraEnv },
    { timeoutMs: 120_000 },
  );
  return {
    name: 'all-in-one',
    dataDir,
    gateways: [apiClient(process.url)],
    processes: [process],
    adminToken,
    stop: async () => {
      await process.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The dependency URLs the services of a distributed topology are started with. */
export interface DependencyUrls {
  database: string;
  redis: string;
  nats: string;
}

export interface DistributedOptions {
  /**
   * Rewrites the URLs the services get (e.g. to put a proxy in between); called once the
   * throwaway database exists, so its URL can be rewritten too. The topology's own set-up and
   * clean-up keep using the real servers.
   */
  urls?: (urls: DependencyUrls) => DependencyUrls | Promise<DependencyUrls>;
  /** Webhook dispatcher processes to start (none by default). */
  dispatchers?: number;
}

export interface DistributedTopology extends Topology {
  env: Record<string, string>;
  deployment: string;
  workers: ServiceProcess[];
  dispatchers: ServiceProcess[];
}

/** Production shape: gateways and workers as separate processes on the real PostgreSQL, Redis and NATS. */
export async function startDistributed(
  gatewayCount = 2,
  extraEnv: Record<string, string> = {},
  workerCount = 0,
  options: DistributedOptions = {},
): Promise<DistributedTopology> {
  const database = await createThrowawayDatabase(TEST_SERVER_URL);
  const adminToken = newAdminToken();
  const real: DependencyUrls = { database: database.url, redis: REDIS_URL, nats: NATS_URL };
  let urls: DependencyUrls;
  try {
    urls = options.urls ? await options.urls(real) : real;
  } catch (error) {
    await database.drop();
    throw error;
  }
  // A deployment name of its own keeps this topology's Redis keys, bus subjects and event stream
  // apart from any other run sharing the servers.
  const deployment = `e2e-${randomBytes(4).toString('hex')}`;
  const env = {
    JUMBE_DEPLOYMENT: deployment,
    JUMBE_DATABASE_URL: urls.database,
    JUMBE_REDIS_URL: urls.redis,
    JUMBE_NATS_URL: urls.nats,
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
    if (workerCount > 0) await waitForAllShardsServed(processes, 'worker');
    for (let i = 0; i < (options.dispatchers ?? 0); i += 1) {
      processes.push(await ServiceProcess.start('webhook-dispatcher', env, { name: `dispatcher-${i + 1}` }));
    }
    if ((options.dispatchers ?? 0) > 0) await waitForAllShardsServed(processes, 'dispatcher');
  } catch (error) {
    await Promise.all(processes.map((p) => p.stop()));
    await database.drop();
    throw error;
  }
  return {
    name: 'distributed',
    env,
    deployment,
    gateways: processes.filter((p) => p.name.startsWith('gateway')).map((p) => apiClient(p.url)),
    workers: processes.filter((p) => p.name.startsWith('worker')),
    dispatchers: processes.filter((p) => p.name.startsWith('dispatcher')),
    processes,
    adminToken,
    stop: async () => {
      await Promise.all(processes.map((p) => p.stop()));
      await database.drop();
      await deleteRedisKeys(`${deployment}/*`);
      await deleteEventStream(deployment);
    },
  };
}

/** Removes what a finished topology left in Redis (its sandbox phones, counters, leases). */
async function deleteRedisKeys(pattern: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(pattern);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** Waits until the workers' logs show all 64 shards spread over all of them. */
async function waitForAllShardsServed(
  processes: ServiceProcess[],
  role: 'worker' | 'dispatcher',
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const counts = processes.filter((p) => p.name.startsWith(role)).map((p) => lastShardCount(p.logs()));
    // Every worker has its share and together they hold them all: the assignment has settled.
    if (counts.every((count) => count > 0) && counts.reduce((sum, count) => sum + count, 0) === 64) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${role}s did not take all shards in time`);
}

function lastShardCount(logs: string): number {
  const matches = [...logs.matchAll(/"shardsHeld":(\d+)/g)];
  return matches.length > 0 ? Number(matches[matches.length - 1]![1]) : 0;
}

/** Removes the topology's JetStream event stream and media bucket (named after its deployment). */
async function deleteEventStream(deployment: string): Promise<void> {
  const connection = await connect({ servers: NATS_URL.replace(/^nats:\/\//, '') });
  try {
    const manager = await connection.jetstreamManager();
    await manager.streams.delete(eventStreamName(deployment)).catch(() => undefined);
    // The gateways' copy of the events for live subscribers (GET /api/v1/events).
    await manager.streams.delete(`${eventStreamName(deployment)}_LIVE`).catch(() => undefined);
    await manager.streams.delete(`OBJ_${mediaBucketName(deployment)}`).catch(() => undefined);
  } finally {
    await connection.close();
  }
}
