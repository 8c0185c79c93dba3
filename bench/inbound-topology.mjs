// The processes of `npm run bench inbound`: the receiver, and Jumbe in either topology (all-in-one;
// or gateway, session worker and webhook dispatcher apart on NATS and Redis), each from dist/ and
// on a throwaway database of the PostgreSQL server.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { connect } from 'nats';
import pg from 'pg';
import { NATS, POSTGRES, REDIS } from './support/deployment.mjs';
import { root, startService } from './support/services.mjs';

/** The delivering process logs how late its event loop runs (see support/loop-lag.cjs). */
const LOOP_LAG = ['--require', join(root, 'bench', 'support', 'loop-lag.cjs')];

/**
 * BENCH_DISPATCHER_NODE_FLAGS="--flag --other": node/V8 flags for the webhook dispatcher (distributed
 * topology) on top of its production ones, to measure a flag before proposing it.
 */
const EXTRA_DISPATCHER_FLAGS = (process.env.BENCH_DISPATCHER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);

/**
 * Starts a script and resolves once it logs where it listens; `lines` keeps its log lines.
 * BENCH_CPU_PROF_DIR=<dir>: each Jumbe process writes a CPU profile there (`<label>.cpuprofile`)
 * when it stops; `profile: false` for the bench's own processes.
 */
export async function start(script, env, label, { nodeOptions = [], profile = true } = {}) {
  const lines = [];
  /** What support/loop-lag.cjs logged, if preloaded: { at, meanMs, maxMs } once a second. */
  const lags = [];
  const service = await startService(script, env, label, {
    quiet: true,
    nodeOptions,
    profile,
    onLine: (line) => {
      if (line.includes('"bench loop lag"')) return void lags.push(JSON.parse(line));
      if (lines.length < 10_000) lines.push(line);
    },
  });
  return { ...service, lines, lags };
}

/** The delivering process's event loop between two instants (ms since the epoch): mean and worst lateness, ms. */
const loopLagOf = (lags) => (from, to) => {
  const within = lags.filter((lag) => lag.at > from && lag.at <= to + 1_000);
  if (within.length === 0) return null;
  const mean = within.reduce((sum, lag) => sum + lag.meanMs, 0) / within.length;
  const max = Math.max(...within.map((lag) => lag.maxMs));
  return `${mean.toFixed(0)} / ${max.toFixed(0)}`;
};

/** SIGTERM (so a profiled process writes its profile), then SIGKILL what is still running after 15 s. */
async function stopAll(started) {
  await Promise.all(started.map((service) => service.stop()));
}

/** A throwaway database on the PostgreSQL server, dropped by `drop()`. */
async function throwawayDatabase() {
  const name = `jumbe_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return {
    url: url.toString(),
    client,
    /** The mean time of the POSTs recorded since `since` (ms, as the dispatcher measured them). */
    postMs: async (since) =>
      Number(
        (
          await client.query(
            'SELECT avg(duration_ms) AS ms FROM webhook_deliveries WHERE attempted_at >= $1',
            [new Date(since)],
          )
        ).rows[0].ms ?? 0,
      ).toFixed(1),
    /** Transactions committed or rolled back in the database so far (its statistics). */
    transactions: async () =>
      Number(
        (
          await client.query(
            'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
          )
        ).rows[0].n,
      ),
    drop: async () => {
      await client.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * The all-in-one process, on a throwaway database of the shared PostgreSQL server (so the bench
 * can count the events waiting in its log); `deliverer` is the process whose CPU and profile are
 * reported, `backlog()` the events stored and not yet acknowledged.
 */
export async function allInOne(adminToken) {
  const dataDir = mkdtempSync(join(tmpdir(), 'jumbe-bench-inbound-'));
  const database = await throwawayDatabase();
  const env = {
    JUMBE_DATA_DIR: dataDir,
    JUMBE_DATABASE_URL: database.url,
    JUMBE_NETWORK: 'sandbox',
    JUMBE_ADMIN_TOKEN: adminToken,
    JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const stop = async () => {
    await stopAll(started);
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const started = [];
  try {
    const service = await start('dist/apps/all-in-one/src/main.js', env, 'all-in-one', {
      nodeOptions: LOOP_LAG,
    });
    started.push(service);
    const backlog = async () =>
      Number((await database.client.query('SELECT count(*) AS n FROM inbound_events')).rows[0].n);
    const { transactions, postMs } = database;
    return {
      gateway: service.url,
      deliverer: service.child,
      loopLag: loopLagOf(service.lags),
      injectors: [],
      backlog,
      transactions,
      postMs,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One gateway, one session worker and one webhook dispatcher, on a throwaway database and namespace. */
export async function distributed(adminToken) {
  const database = await throwawayDatabase();
  const deployment = `bench-${randomBytes(4).toString('hex')}`;
  const stream = `JUMBE_EVENTS_${deployment.toUpperCase().replace(/-/g, '_')}`;
  const env = {
    JUMBE_DEPLOYMENT: deployment,
    JUMBE_DATABASE_URL: database.url,
    JUMBE_REDIS_URL: REDIS,
    JUMBE_NATS_URL: NATS,
    JUMBE_SECRET_KEY: randomBytes(32).toString('base64url'),
    JUMBE_ADMIN_TOKEN: adminToken,
    JUMBE_NETWORK: 'sandbox',
    JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const nats = await connect({ servers: NATS.replace(/^nats:\/\//, '') });
  const manager = await nats.jetstreamManager();
  const started = [];
  const stop = async () => {
    await stopAll(started);
    await database.drop();
    const redis = new Redis(REDIS);
    const keys = await redis.keys(`${deployment}/*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await manager.streams.delete(stream).catch(() => undefined);
    await nats.close();
  };
  try {
    const gateway = await start('dist/apps/gateway/src/main.js', env, 'gateway');
    started.push(gateway);
    const worker = await start('dist/apps/session-worker/src/main.js', env, 'worker');
    started.push(worker);
    const dispatcher = await start('dist/apps/webhook-dispatcher/src/main.js', env, 'dispatcher', {
      nodeOptions: [...LOOP_LAG, ...EXTRA_DISPATCHER_FLAGS],
    });
    started.push(dispatcher);
    await allShardsHeld(dispatcher.lines);
    // A work-queue stream: what it holds is what is stored and not yet acknowledged.
    const backlog = async () => (await manager.streams.info(stream)).state.messages;
    const { transactions, postMs } = database;
    // Where the bench publishes straight into the stream, to measure the dispatcher alone.
    const direct = { nats, namespace: `${deployment}.` };
    const injectors = [gateway.child, worker.child];
    return {
      gateway: gateway.url,
      deliverer: dispatcher.child,
      loopLag: loopLagOf(dispatcher.lags),
      injectors,
      backlog,
      transactions,
      postMs,
      direct,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function allShardsHeld(lines) {
  const deadline = Date.now() + 30_000;
  while (!lines.some((line) => line.includes('"shardsHeld":64')) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
