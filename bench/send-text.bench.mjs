// `npm run bench`: throughput of POST /api/v1/messages/text under 50 connections (autocannon),
// in the all-in-one mode and the distributed mode (one gateway, one worker), each reported as a
// ratio of a bare Fastify server measured right before and after it in the same run. Not part of
// the test command.
import autocannon from 'autocannon';
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Redis from 'ioredis';
import { connect } from 'nats';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const DURATION = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 50;
const POSTGRES = process.env.JUMBE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const children = [];

function start(script, env, label) {
  const child = spawn(process.execPath, [join(root, script)], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      JUMBE_HOST: '127.0.0.1',
      JUMBE_PORT: '0',
      JUMBE_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start`)), 120_000);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        const match = /"url":"(http:\/\/[^"]+)".*listening|listening.*"url":"(http:\/\/[^"]+)"/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(match[1] ?? match[2]);
        }
      });
    }
    child.once('exit', (code) => reject(new Error(`${label} exited with ${code}`)));
  });
}

async function json(url, method, body, headers = {}) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await response.json();
  if (response.status >= 300)
    throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

/** An account with a huge quota, and a linked sandbox session: what the load sends through. */
async function prepare(baseUrl, adminToken) {
  const admin = { authorization: `Bearer ${adminToken}` };
  const plan = `bench-${randomBytes(3).toString('hex')}`;
  await json(
    `${baseUrl}/api/v1/admin/plans`,
    'POST',
    { name: plan, monthlyApiHits: 1e12, maxSessions: 5 },
    admin,
  );
  const account = await json(`${baseUrl}/api/v1/admin/accounts`, 'POST', { name: 'bench', plan }, admin);
  const { key } = await json(`${baseUrl}/api/v1/admin/accounts/${account.data.id}/keys`, 'POST', {}, admin);
  const headers = { 'x-api-key': key };
  await json(`${baseUrl}/api/v1/session/start`, 'POST', {}, headers);
  for (let i = 0; i < 100; i += 1) {
    const qr = await json(`${baseUrl}/api/v1/session/qr`, 'GET', undefined, headers);
    if (qr.data.state === 'qr_ready') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const phone = `2547${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  await json(`${baseUrl}/api/v1/sandbox/scan`, 'POST', { phoneNumber: phone }, headers);
  return key;
}

function load(baseUrl, key) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${baseUrl}/api/v1/messages/text`,
        method: 'POST',
        connections: CONNECTIONS,
        duration: DURATION,
        headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
        body: JSON.stringify({ to: '254711111111', text: 'Habari, your order 42 is on its way.' }),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

const summary = (label, result) => ({
  label,
  requestsPerSecond: Math.round(result.requests.average),
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
});

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs')], { stdio: 'inherit' });
  const adminToken = `bench_${randomBytes(16).toString('hex')}`;
  const results = [];

  const baseline = await start('bench/baseline-server.mjs', {}, 'baseline');
  await load(baseline, null); // warm-up
  // The machine's speed drifts during a run (and the load generator shares it), so each target is
  // compared with the baseline measured right before and right after it.
  const compare = async (label, url, key) => {
    const before = await load(baseline, null);
    const target = await load(url, key);
    const after = await load(baseline, null);
    const base = (before.requests.average + after.requests.average) / 2;
    results.push({
      ...summary(label, target),
      baselineRps: Math.round(base),
      ratio: Number((target.requests.average / base).toFixed(3)),
    });
  };

  const dataDir = mkdtempSync(join(tmpdir(), 'jumbe-bench-'));
  const allInOne = await start(
    'dist/apps/all-in-one/src/main.js',
    { JUMBE_DATA_DIR: dataDir, JUMBE_NETWORK: 'sandbox', JUMBE_ADMIN_TOKEN: adminToken },
    'all-in-one',
  );
  const key1 = await prepare(allInOne, adminToken);
  await load(allInOne, key1); // warm-up
  await compare('all-in-one', allInOne, key1);

  const database = `jumbe_bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: POSTGRES });
  await client.connect();
  await client.query(`CREATE DATABASE ${database}`);
  const url = new URL(POSTGRES);
  url.pathname = `/${database}`;
  const deployment = `bench-${randomBytes(4).toString('hex')}`;
  const env = {
    JUMBE_DEPLOYMENT: deployment,
    JUMBE_DATABASE_URL: url.toString(),
    JUMBE_REDIS_URL: process.env.JUMBE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    JUMBE_NATS_URL: process.env.JUMBE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
    JUMBE_SECRET_KEY: randomBytes(32).toString('base64url'),
    JUMBE_ADMIN_TOKEN: adminToken,
    JUMBE_NETWORK: 'sandbox',
  };
  try {
    const gateway = await start('dist/apps/gateway/src/main.js', env, 'gateway');
    await start('dist/apps/session-worker/src/main.js', env, 'worker');
    await new Promise((r) => setTimeout(r, 2_000));
    const key2 = await prepare(gateway, adminToken);
    await load(gateway, key2); // warm-up
    await compare('distributed (1 gateway, 1 worker)', gateway, key2);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 3_000));
    await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await client.end();
    rmSync(dataDir, { recursive: true, force: true });
    const redis = new Redis(env.JUMBE_REDIS_URL);
    const keys = await redis.keys(`${deployment}/*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    // The deployment's event stream (named as libs/contracts eventStreamName does).
    const nats = await connect({ servers: env.JUMBE_NATS_URL.replace(/^nats:\/\//, '') });
    const manager = await nats.jetstreamManager();
    await manager.streams
      .delete(`JUMBE_EVENTS_${deployment.toUpperCase().replace(/-/g, '_')}`)
      .catch(() => undefined);
    await nats.close();
  }

  const goals = { 'all-in-one': 0.6, 'distributed (1 gateway, 1 worker)': 0.4 };
  for (const result of results) result.goal = `>= ${goals[result.label]}`;
  console.table(results);
}

main().catch((error) => {
  console.error(error);
  for (const child of children) child.kill('SIGKILL');
  process.exit(1);
});
