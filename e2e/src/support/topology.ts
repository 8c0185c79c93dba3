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

/** Production shape: gateways as separate processes on the real PostgreSQL, Redis and NATS. */
export async function startDistributed(
  gatewayCount = 2,
  extraEnv: Record<string, string> = {},
): Promise<Topology & { env: Record<string, string> }> {
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
  } catch (error) {
    await Promise.all(processes.map((p) => p.stop()));
    await database.drop();
    throw error;
  }
  return {
    name: 'distributed',
    env,
    gateways: processes.map((p) => apiClient(p.url)),
    processes,
    adminToken,
    stop: async () => {
      await Promise.all(processes.map((p) => p.stop()));
      await database.drop();
    },
  };
}
