// `npm run bench takeover`: how long after a session worker is SIGKILLed (and a new one started at
// once) every linked sandbox session sends again, lease expiry included. One gateway and one worker
// as separate processes on PostgreSQL, NATS and Redis. Sizes: BENCH_TAKEOVER_SIZES (default
// "1000,10000"). Not part of the test command.
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Redis from 'ioredis';
import { connect } from 'nats';
import pg from 'pg';
import { call, NATS, ok, POSTGRES, REDIS } from './support/deployment.mjs';
import { inParallel, untilEverySessionSends } from './support/recovery.mjs';
import { pause } from './support/services.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SIZES = (process.env.BENCH_TAKEOVER_SIZES ?? '1000,10000').split(',').map(Number);
const GOAL_MS = 10_000;
const PARALLEL = 32;
const children = new Set();

/** Starts a service from dist/ and resolves with its URL and a way to read its log. */
function start(script, env, label, nodeOptions = []) {
  const child = spawn(process.execPath, [...nodeOptions, join(root, script)], {
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
  children.add(child);
  child.once('exit', () => children.delete(child));
  const log = { renewalMisses: 0, allShardsAt: 0, lastAdoptedAt: 0 };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start`)), 120_000);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (line.includes('could not be renewed in time')) log.renewalMisses += 1;
        // Pino's "time" (ms): when the last shard was acquired, and when the last one was restored.
        const time = Number(/"time":(\d+)/.exec(line)?.[1] ?? 0);
        if (line.includes('"shardsHeld":64')) log.allShardsAt = time;
        if (line.includes('shard acquired')) log.lastAdoptedAt = Math.max(log.lastAdoptedAt, time);
        const match = /"url":"(http:\/\/[^"]+)".*listening/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve({ url: match[1], child, log });
        }
      });
    }
    child.once('exit', (code) => reject(new Error(`${label} exited with ${code}`)));
  });
}

/** An account allowed `count` sessions, with `count` sessions linked to sandbox phones. */
async function linkSessions(gateway, adminToken, count) {
  const admin = { authorization: `Bearer ${adminToken}` };
  const plan = `bench-${randomBytes(3).toString('hex')}`;
  await ok(
    `${gateway}/api/v1/admin/plans`,
    'POST',
    { name: plan, monthlyApiHits: 1e12, maxSessions: count },
    admin,
  );
  const account = await ok(`${gateway}/api/v1/admin/accounts`, 'POST', { name: 'bench', plan }, admin);
  const { key } = await ok(`${gateway}/api/v1/admin/accounts/${account.data.id}/keys`, 'POST', {}, admin);
  const headers = { 'x-api-key': key };
  const sessionIds = Array.from({ length: count }, (_, i) => `line${i}`);
  const prefix = `2547${String(Math.floor(Math.random() * 9_000) + 1_000)}`;
  await inParallel(sessionIds, PARALLEL, async (sessionId) => {
    await ok(`${gateway}/api/v1/session/start`, 'POST', { sessionId }, headers);
    const phoneNumber = `${prefix}${sessionId.slice(4).padStart(4, '0')}`;
    for (let attempt = 0; ; attempt += 1) {
      const scanned = await call(
        `${gateway}/api/v1/sandbox/scan`,
        'POST',
        { sessionId, phoneNumber },
        headers,
      );
      if (scanned.status === 200 && scanned.body.data.state === 'connected') return;
      if (attempt > 50)
        throw new Error(`scan ${sessionId}: ${scanned.status} ${JSON.stringify(scanned.body)}`);
      await pause(100);
    }
  });
  return { key, sessionIds };
}

async function scenario(size, adminToken, database) {
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
    ...(process.env.JUMBE_RESTORE_CONCURRENCY
      ? { JUMBE_RESTORE_CONCURRENCY: process.env.JUMBE_RESTORE_CONCURRENCY }
      : {}),
  };
  try {
    const gateway = await start('dist/apps/gateway/src/main.js', env, 'gateway');
    const victim = await start('dist/apps/session-worker/src/main.js', env, 'worker');
    await pause(2_000);
    const linkStarted = Date.now();
    const { key, sessionIds } = await linkSessions(gateway.url, adminToken, size);
    const linkMs = Date.now() - linkStarted;
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    const replacement = await start(
      'dist/apps/session-worker/src/main.js',
      {
        ...env,
        JUMBE_LOG_LEVEL: 'debug',
      },
      'worker',
      // BENCH_CPU_PROF_DIR=<dir>: a CPU profile of the new worker (written when it stops).
      process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
        : [],
    );
    const replacementUpMs = Date.now() - killedAt;
    const recovery = await untilEverySessionSends(gateway.url, key, sessionIds, killedAt, PARALLEL * 2);
    return {
      sessions: size,
      linkS: Number((linkMs / 1000).toFixed(1)),
      newWorkerUpMs: replacementUpMs,
      everySessionSendsMs: recovery.allMs,
      p50SessionMs: recovery.p50Ms,
      leasesTakenMs: replacement.log.allShardsAt - killedAt,
      restoredMs: replacement.log.lastAdoptedAt - killedAt,
      goal: `< ${GOAL_MS}`,
      met: recovery.allMs < GOAL_MS,
      renewalMisses: replacement.log.renewalMisses,
      answersDuring: JSON.stringify(recovery.answers),
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await pause(3_000);
    const redis = new Redis(REDIS);
    const keys = await redis.keys(`${deployment}/*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    const nats = await connect({ servers: NATS.replace(/^nats:\/\//, '') });
    const manager = await nats.jetstreamManager();
    await manager.streams
      .delete(`JUMBE_EVENTS_${deployment.toUpperCase().replace(/-/g, '_')}`)
      .catch(() => undefined);
    await nats.close();
  }
}

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs')], { stdio: 'inherit' });
  const adminToken = `bench_${randomBytes(16).toString('hex')}`;
  const client = new pg.Client({ connectionString: POSTGRES });
  await client.connect();
  const results = [];
  try {
    for (const size of SIZES) {
      const database = `jumbe_bench_${randomBytes(4).toString('hex')}`;
      await client.query(`CREATE DATABASE ${database}`);
      try {
        results.push(await scenario(size, adminToken, database));
        console.table(results);
      } finally {
        await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      }
    }
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  for (const child of children) child.kill('SIGKILL');
  process.exit(1);
});
