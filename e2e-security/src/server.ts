import { apiClient, type ApiClient, lastReadWithin, RecordingReceiver, ServiceProcess } from '@jumbe/testing';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const randomPhone = () => `2547${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;

/** Short limits, so slow-client behaviour shows within seconds. */
export const LIMITS = { headersMs: 3_000, requestMs: 5_000, idleMs: 4_000, connectionsPerAddress: 150 };

export interface Account {
  accountId: string;
  key: string;
  keyId: string;
}

export interface Target {
  process: ServiceProcess;
  api: ApiClient;
  adminToken: string;
  receiver: RecordingReceiver;
  stop(): Promise<void>;
}

/** One all-in-one process on the sandbox network, with a webhook receiver on this machine. */
export async function startTarget(): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), 'jumbe-security-'));
  const adminToken = `admin_${randomBytes(16).toString('hex')}`;
  const process = await ServiceProcess.start(
    'all-in-one',
    {
      JUMBE_DATA_DIR: dataDir,
      JUMBE_ADMIN_TOKEN: adminToken,
      JUMBE_NETWORK: 'sandbox',
      JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
      JUMBE_HTTP_HEADERS_TIMEOUT_MS: String(LIMITS.headersMs),
      JUMBE_HTTP_REQUEST_TIMEOUT_MS: String(LIMITS.requestMs),
      JUMBE_HTTP_IDLE_TIMEOUT_MS: String(LIMITS.idleMs),
      JUMBE_MAX_CONNECTIONS_PER_ADDRESS: String(LIMITS.connectionsPerAddress),
    },
    { timeoutMs: 120_000 },
  );
  const receiver = await RecordingReceiver.start();
  return {
    process,
    api: apiClient(process.url),
    adminToken,
    receiver,
    stop: async () => {
      await process.stop();
      await receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What the admin helpers need of a server: its API and the operator token (any topology). */
export type AdminAccess = Pick<Target, 'api' | 'adminToken'>;

/** A plan, an account on it and a full key, through the admin API. */
export async function createAccount(target: AdminAccess, name: string): Promise<Account> {
  const { api, adminToken } = target;
  const plan = `plan-${name}-${randomBytes(3).toString('hex')}`;
  const created = await api.post('/api/v1/admin/plans', {
    bearer: adminToken,
    body: { name: plan, monthlyApiHits: 1_000_000, maxSessions: 20 },
  });
  if (created.status !== 201) throw new Error(`plan: ${created.status} ${created.text}`);
  const account = await api.post('/api/v1/admin/accounts', { bearer: adminToken, body: { name, plan } });
  if (account.status !== 201) throw new Error(`account: ${account.status} ${account.text}`);
  const accountId: string = account.body.data.id;
  const key = await createKey(target, accountId);
  return { accountId, ...key };
}

export async function createKey(
  target: AdminAccess,
  accountId: string,
): Promise<{ key: string; keyId: string }> {
  const key = await target.api.post(`/api/v1/admin/accounts/${accountId}/keys`, {
    bearer: target.adminToken,
    body: { name: 'security', scope: 'full' },
  });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { key: key.body.key, keyId: key.body.data.id };
}

/** Polls (every 100 ms) until `check` passes or the deadline is over; returns the last value. */
export const eventually = <T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 20_000) =>
  lastReadWithin(read, check, timeoutMs, 100);

/** Starts `sessionId` and links a sandbox phone to it. */
export async function linkSession(
  api: ApiClient,
  key: string,
  sessionId: string,
  phone: string,
): Promise<void> {
  const started = await api.post('/api/v1/session/start', { key, body: { sessionId } });
  if (started.status !== 200) throw new Error(`start: ${started.status} ${started.text}`);
  await eventually(
    () => api.get(`/api/v1/session/qr?sessionId=${sessionId}`, { key }),
    (response) => response.body?.data?.state === 'qr_ready',
  );
  const scanned = await api.post('/api/v1/sandbox/scan', { key, body: { sessionId, phoneNumber: phone } });
  if (scanned.status !== 200) throw new Error(`scan: ${scanned.status} ${scanned.text}`);
}
