// `npm run bench sessions` (issue 15 scenario 3, issue 17's restore goal): many connected sandbox
// sessions on one worker. For each size (BENCH_SESSIONS_SIZES, default "1000,10000"), one gateway
// and one session worker as separate processes on PostgreSQL, NATS and Redis:
//   1. memory per idle session: the worker's RSS and heapUsed after GC with no session, then with
//      N linked ones, the difference divided by N (bench/support/memory-probe.cjs);
//   2. `GET /sessions` latency for the account of N sessions, whole and paginated, alternating
//      with `GET /usage` (an authenticated read of one row: the baseline of the same run);
//   3. take-over, BENCH_TAKEOVER_ROUNDS (or `--runs N`; default 3) times on the same linked sessions: SIGKILL the
//      worker, start a new one at once; when it held all 64 leases, when every session was
//      restored (its /metrics, no traffic meanwhile) and the worker CPU that took, then one send
//      through every session (when every session had sent again), and its memory once restored.
// BENCH_DIST=<dir[:concurrency]>,… runs each build given (e.g. a copy of dist/ built before a
// change, side by side with dist/) with that JUMBE_RESTORE_CONCURRENCY; dist/ is built first;
// BENCH_CPU_PROF_DIR=<dir> profiles the last replacement worker; BENCH_OUT=<file> writes JSON.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuSnapshot, loadAverage } from './support/cpu.mjs';
import { call, createAccount, createDeployment, createKey, linkSessions } from './support/deployment.mjs';
import { untilEverySessionSends } from './support/recovery.mjs';
import { killAll, pause, root, startService, stopAll } from './support/services.mjs';
import { median, spread } from './support/stats.mjs';

const SIZES = (process.env.BENCH_SESSIONS_SIZES ?? '1000,10000').split(',').map(Number);
const runsFlag = process.argv.indexOf('--runs');
/** Issue 32's goal is every one of five runs: `npm run bench sessions -- --runs 5`. */
const ROUNDS = Number(
  (runsFlag === -1 ? undefined : process.argv[runsFlag + 1]) ?? process.env.BENCH_TAKEOVER_ROUNDS ?? 3,
);
const LIST_REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 30);
// Builds to compare in one run, each `dir[:restore concurrency]` (e.g. "tmp/dist-before,dist,dist:256").
const VARIANTS = (process.env.BENCH_DIST ?? 'dist')
  .split(',')
  .map((variant) => {
    const [dist, concurrency] = variant.split(':');
    return { name: variant, dist, concurrency };
  })
  .map((variant, i) => ({ ...variant, tag: `v${i}` }));
const GOAL_MS = 10_000;
const MEMORY_GOAL_BYTES = 100 * 1024;
const SEND_PARALLEL = 64;
const PROBE = join(root, 'bench', 'support', 'memory-probe.cjs');

/** A session worker with the memory probe; its log tells when it held every lease. */
async function startWorker(env, dist, label, { profile = false } = {}) {
  const state = { allShardsAt: 0, cpuAtLeasesUs: 0, renewalMisses: 0, probes: [] };
  const service = await startService(`${dist}/apps/session-worker/src/main.js`, env, label, {
    nodeOptions: ['--expose-gc', '--require', PROBE],
    profile,
    onLine: (line, pid) => {
      if (line.includes('"shardsHeld":64') && !state.allShardsAt) {
        state.allShardsAt = Date.now();
        state.cpuAtLeasesUs = cpuOf(pid);
      }
      if (line.includes('could not be renewed in time')) state.renewalMisses += 1;
      const probe = /^\{"memoryProbe":(.*)\}$/.exec(line);
      if (probe) state.probes.shift()?.(JSON.parse(probe[1]));
    },
  });
  const probe = () =>
    new Promise((resolve) => {
      state.probes.push(resolve);
      service.child.kill('SIGUSR2');
    });
  return { ...service, state, probe };
}

const cpuOf = (pid) => cpuSnapshot({ pid }).pid;

/** The workers' JUMBE_METRICS_TOKEN: /metrics on a service's port is served only with it. */
const METRICS_TOKEN = `bench_metrics_${randomBytes(16).toString('hex')}`;

/**
 * Connected sessions the worker reports on its /metrics (the `jumbe_sessions` gauge); a rendering
 * is reused for up to a second, so a restore's end is seen up to a second late.
 */
async function connectedOn(worker) {
  const response = await fetch(`${worker.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  }).catch(() => null);
  if (!response?.ok) return 0;
  const text = await response.text();
  return Number(/^jumbe_sessions\{state="connected"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

/** p50/p99 (ms) of `requests` sequential calls of each target, the targets alternating. */
async function latencies(targets, requests) {
  const samples = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  for (let i = 0; i < requests; i += 1) {
    for (const [name, request] of Object.entries(targets)) {
      const started = performance.now();
      const response = await request();
      if (response.status !== 200)
        throw new Error(`${name}: ${response.status} ${JSON.stringify(response.body)}`);
      samples[name].push(performance.now() - started);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, values]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
      return [name, { p50: Number(at(0.5).toFixed(1)), p99: Number(at(0.99).toFixed(1)) }];
    }),
  );
}

/** Walks every page of GET /sessions with `limit`; ms and pages. */
async function walkPages(gateway, key, limit, expected) {
  const started = performance.now();
  let cursor;
  let pages = 0;
  let seen = 0;
  do {
    const query = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await call(`${gateway}/api/v1/sessions?${query}`, 'GET', undefined, { 'x-api-key': key });
    if (page.status !== 200) throw new Error(`page: ${page.status} ${JSON.stringify(page.body)}`);
    pages += 1;
    seen += page.body.data.length;
    cursor = page.body.nextCursor;
  } while (cursor);
  if (seen !== expected) throw new Error(`pages listed ${seen} sessions, not ${expected}`);
  return { ms: Math.round(performance.now() - started), pages };
}

const perSession = (before, after, count) => Math.round((after - before) / count);
const mib = (bytes) => Number((bytes / 1024 / 1024).toFixed(1));

async function scenario(size, adminToken, { dist, concurrency, tag }) {
  const deployment = await createDeployment(adminToken);
  const env = {
    ...deployment.env,
    JUMBE_METRICS_TOKEN: METRICS_TOKEN,
    ...(concurrency ? { JUMBE_RESTORE_CONCURRENCY: concurrency } : {}),
  };
  try {
    const gateway = await startService(`${dist}/apps/gateway/src/main.js`, env, 'gateway', {
      profile: false,
    });
    let worker = await startWorker(env, dist, `${tag}-${size}-worker0`);
    await until(async () => worker.state.allShardsAt > 0, 60_000, 'the first worker to hold every shard');
    await pause(2_000);
    const idle = await worker.probe();

    const accountId = await createAccount(gateway.url, adminToken, { maxSessions: size });
    const key = await createKey(gateway.url, adminToken, accountId);
    const sessionIds = Array.from({ length: size }, (_, i) => `line${i}`);
    const linkStarted = Date.now();
    await linkSessions(gateway.url, key, sessionIds, 32);
    const linkS = Math.round((Date.now() - linkStarted) / 1000);
    await pause(3_000);
    const linked = await worker.probe();
    const memory = {
      idleRssMiB: mib(idle.rss),
      idleHeapMiB: mib(idle.heapUsed),
      rssPerSessionB: perSession(idle.rss, linked.rss, size),
      heapPerSessionB: perSession(idle.heapUsed, linked.heapUsed, size),
      externalPerSessionB: perSession(idle.external, linked.external, size),
    };
    console.log(`[sessions ${size}] linked in ${linkS} s; memory`, memory);

    const headers = { 'x-api-key': key };
    const list = await latencies(
      {
        'GET /usage (baseline)': () => call(`${gateway.url}/api/v1/usage`, 'GET', undefined, headers),
        'GET /sessions (all)': () => call(`${gateway.url}/api/v1/sessions`, 'GET', undefined, headers),
        'GET /sessions?limit=100': () =>
          call(`${gateway.url}/api/v1/sessions?limit=100`, 'GET', undefined, headers),
      },
      LIST_REQUESTS,
    );
    const whole = await call(`${gateway.url}/api/v1/sessions`, 'GET', undefined, headers);
    if (whole.body.data.length !== size) throw new Error(`GET /sessions listed ${whole.body.data.length}`);
    const walk = await walkPages(gateway.url, key, 500, size);
    console.log(`[sessions ${size}] GET /sessions`, list, 'every page of 500:', walk);

    const takeovers = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const load = loadAverage();
      const killedAt = Date.now();
      worker.child.kill('SIGKILL');
      const next = await startWorker(env, dist, `${tag}-${size}-worker${round}`, {
        // The last one: it is stopped with SIGTERM at the end, which is when a profile is written.
        profile: round === ROUNDS && Boolean(process.env.BENCH_CPU_PROF_DIR),
      });
      const upMs = Date.now() - killedAt;
      // The restore first, with no traffic, so its CPU is its own; then one send per session.
      let restoredAt = 0;
      let cpuAtRestoredUs = 0;
      const deadline = Date.now() + 120_000;
      while (!restoredAt && Date.now() < deadline) {
        if ((await connectedOn(next)) >= size) {
          restoredAt = Date.now();
          cpuAtRestoredUs = cpuOf(next.pid);
        } else await pause(50);
      }
      const recovery = await untilEverySessionSends(gateway.url, key, sessionIds, killedAt, SEND_PARALLEL);
      await pause(1_000);
      const restored = await next.probe();
      const result = {
        round,
        loadAverage: load,
        newWorkerUpMs: upMs,
        leasesHeldMs: next.state.allShardsAt - killedAt,
        allRestoredMs: restoredAt ? restoredAt - killedAt : null,
        restoreAfterLeasesMs: restoredAt ? restoredAt - next.state.allShardsAt : null,
        // Worker CPU from holding every lease to every session connected (restores only).
        restoreCpuMs: restoredAt ? Math.round((cpuAtRestoredUs - next.state.cpuAtLeasesUs) / 1000) : null,
        everySessionSendsMs: recovery.allMs,
        p50SessionMs: recovery.p50Ms,
        met: recovery.allMs < GOAL_MS,
        renewalMisses: next.state.renewalMisses,
        restoredRssPerSessionB: perSession(idle.rss, restored.rss, size),
        restoredHeapPerSessionB: perSession(idle.heapUsed, restored.heapUsed, size),
        answersDuring: JSON.stringify(recovery.answers),
      };
      console.log(`[sessions ${size}] take-over`, result);
      takeovers.push(result);
      worker = next;
    }
    const pick = (field) => takeovers.map((t) => t[field]).filter((v) => v !== null);
    return {
      sessions: size,
      linkS,
      memory: { ...memory, goalB: MEMORY_GOAL_BYTES, met: memory.rssPerSessionB < MEMORY_GOAL_BYTES },
      list: { ...list, everyPageOf500: walk },
      takeover: {
        rounds: takeovers,
        leasesHeldMs: spread(pick('leasesHeldMs')),
        allRestoredMs: spread(pick('allRestoredMs')),
        restoreAfterLeasesMs: spread(pick('restoreAfterLeasesMs')),
        restoreCpuMs: spread(pick('restoreCpuMs')),
        everySessionSendsMs: spread(pick('everySessionSendsMs')),
        medianMet: median(pick('everySessionSendsMs')) < GOAL_MS,
        everyRunMet: takeovers.every((t) => t.met),
        everyRunRestoredInTime: takeovers.every((t) => t.allRestoredMs !== null && t.allRestoredMs < GOAL_MS),
        loadAverage: spread(pick('loadAverage'), 1),
      },
    };
  } finally {
    await stopAll();
    await deployment.drop();
  }
}

async function main() {
  if (VARIANTS.some((variant) => variant.dist === 'dist'))
    execFileSync(process.execPath, [join(root, 'tools', 'build.mjs')], { stdio: 'inherit' });
  const adminToken = `bench_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const results = [];
  for (const size of SIZES) {
    for (const variant of VARIANTS) {
      results.push({
        variant: variant.name,
        loadAverageAtStart: loadAverage(),
        ...(await scenario(size, adminToken, variant)),
      });
      console.log(JSON.stringify(results.at(-1), null, 2));
      // Each run: the restore alone (no traffic) and every session sending again (the restore
      // plus the bench's pass of N sends), each against the 10 s goal.
      console.table(
        results.at(-1).takeover.rounds.map((run) => ({
          sessions: size,
          run: run.round,
          leasesHeldMs: run.leasesHeldMs,
          allRestoredMs: run.allRestoredMs,
          restoredUnder10s: run.allRestoredMs !== null && run.allRestoredMs < GOAL_MS,
          everySessionSendsMs: run.everySessionSendsMs,
          sentUnder10s: run.met,
          loadAverage: run.loadAverage,
        })),
      );
    }
  }
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(results, null, 2));
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exit(1);
});
