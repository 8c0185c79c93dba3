// A throwaway distributed deployment (database, Redis namespace, event stream) and the account a
// bench sends through.
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { connect } from 'nats';
import pg from 'pg';

export const POSTGRES = process.env.JUMBE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS = process.env.JUMBE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const NATS = process.env.JUMBE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * BENCH_SEND_STATUS_WEBHOOK=1: each sender's account subscribes to `message.status`, so every send's
 * server ack passes the worker's status relay and is published, as for a bot that tracks its sends.
 * The webhook points at a closed local port (private networks allowed for it): with no dispatcher
 * (distributed) nothing is delivered; the all-in-one's dispatcher records each as refused.
 */
export const STATUS_WEBHOOK = process.env.BENCH_SEND_STATUS_WEBHOOK === '1';
const PRIVATE_NETWORKS = STATUS_WEBHOOK ? { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' } : {};

/** Creates a database and names a deployment; `env` is what every process of it is started with. */
export async function createDeployment(adminToken) {
  const database = `jumbe_bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: POSTGRES });
  await client.connect();
  await client.query(`CREATE DATABASE ${database}`);
  await client.end();
  const url = new URL(POSTGRES);
  url.pathname = `/${database}`;
  const deployment = `bench-${randomBytes(4).toString('hex')}`;
  const env = {
    JUMBE_DEPLOYMENT: deployment,
    JUMBE_DATABASE_URL: url.toString(),
    JUMBE_REDIS_URL: REDIS,
    JUMBE_NATS_URL: NATS,
    JUMBE_SECRET_KEY: randomBytes(32).toString('base64url'),
    JUMBE_ADMIN_TOKEN: adminToken,
    JUMBE_NETWORK: 'sandbox',
    ...PRIVATE_NETWORKS,
  };
  return { env, drop: () => dropDeployment(database, deployment) };
}

async function dropDeployment(database, deployment) {
  const client = new pg.Client({ connectionString: POSTGRES });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await client.end();
  const redis = new Redis(REDIS);
  const keys = await redis.keys(`${deployment}/*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  // The deployment's event stream (named as libs/contracts eventStreamName does).
  const nats = await connect({ servers: NATS.replace(/^nats:\/\//, '') });
  const manager = await nats.jetstreamManager();
  await manager.streams
    .delete(`JUMBE_EVENTS_${deployment.toUpperCase().replace(/-/g, '_')}`)
    .catch(() => undefined);
  await nats.close();
}

export async function call(url, method, body, headers = {}) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

export async function ok(url, method, body, headers) {
  const response = await call(url, method, body, headers);
  if (response.status >= 300)
    throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A plan and an account on it; resolves with the account id. */
export async function createAccount(baseUrl, adminToken, { monthlyApiHits = 1e12, maxSessions = 5 } = {}) {
  const admin = { authorization: `Bearer ${adminToken}` };
  const plan = `bench-${randomBytes(3).toString('hex')}`;
  await ok(`${baseUrl}/api/v1/admin/plans`, 'POST', { name: plan, monthlyApiHits, maxSessions }, admin);
  const account = await ok(`${baseUrl}/api/v1/admin/accounts`, 'POST', { name: 'bench', plan }, admin);
  return account.data.id;
}

export async function createKey(baseUrl, adminToken, accountId) {
  const admin = { authorization: `Bearer ${adminToken}` };
  const { key } = await ok(`${baseUrl}/api/v1/admin/accounts/${accountId}/keys`, 'POST', {}, admin);
  return key;
}

/** Starts the default session and links it with a sandbox scan. */
export async function linkDefaultSession(baseUrl, key) {
  const headers = { 'x-api-key': key };
  await ok(`${baseUrl}/api/v1/session/start`, 'POST', {}, headers);
  for (let i = 0; i < 100; i += 1) {
    const qr = await ok(`${baseUrl}/api/v1/session/qr`, 'GET', undefined, headers);
    if (qr.data.state === 'qr_ready') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const phone = `2547${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  await ok(`${baseUrl}/api/v1/sandbox/scan`, 'POST', { phoneNumber: phone }, headers);
}

/** An account with a huge quota, a key and a linked sandbox session: what the load sends through. */
export async function prepareSender(baseUrl, adminToken) {
  const accountId = await createAccount(baseUrl, adminToken);
  const key = await createKey(baseUrl, adminToken, accountId);
  await linkDefaultSession(baseUrl, key);
  if (STATUS_WEBHOOK) {
    const webhook = { url: 'http://127.0.0.1:9/status-sink', enabled: true, events: ['message.status'] };
    await ok(`${baseUrl}/api/v1/webhook`, 'PATCH', webhook, { 'x-api-key': key });
  }
  return key;
}

/** Starts and links `sessionIds` of the key's account (sandbox scans), `parallel` at a time. */
export async function linkSessions(baseUrl, key, sessionIds, parallel = 16) {
  const headers = { 'x-api-key': key };
  const prefix = `2547${String(Math.floor(Math.random() * 9_000) + 1_000)}`;
  let next = 0;
  const linkOne = async (sessionId, index) => {
    await ok(`${baseUrl}/api/v1/session/start`, 'POST', { sessionId }, headers);
    const phoneNumber = `${prefix}${String(index).padStart(4, '0')}`;
    for (let attempt = 0; ; attempt += 1) {
      const scanned = await call(
        `${baseUrl}/api/v1/sandbox/scan`,
        'POST',
        { sessionId, phoneNumber },
        headers,
      );
      if (scanned.status === 200 && scanned.body.data.state === 'connected') return;
      if (attempt > 50)
        throw new Error(`scan ${sessionId}: ${scanned.status} ${JSON.stringify(scanned.body)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < sessionIds.length) {
        const index = next++;
        await linkOne(sessionIds[index], index);
      }
    }),
  );
}

/** One send body per session, for a load that spreads over them (one session per connection). */
export function bodiesFor(sessionIds) {
  return sessionIds.map((sessionId) =>
    JSON.stringify({ sessionId, to: '254711111111', text: 'Habari, your order 42 is on its way.' }),
  );
}
