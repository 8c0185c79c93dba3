// `npm run bench` (scenario 1 of issue 15): POST /api/v1/messages/text under 50 connections to a
// connected sandbox session, in the all-in-one mode and the distributed mode (one gateway, one
// worker, NATS, Redis), against two baselines measured in the same rounds: a bare Fastify server
// (same body, same answer shape) and "the stack's own limit" (bare Fastify + one Redis EVALSHA +
// one NATS request/reply to a bare responder in another process), each also behind NestJS ("nest",
// "nest-limit": the framework's own share). The load generator runs in its
// own process; rounds alternate the targets; medians and [min–max] are reported, with CPU µs per
// request of every process from /proc. BENCH_ROUNDS, BENCH_DURATION_S, BENCH_TARGETS,
// BENCH_BEFORE_ROOT (another checkout measured alongside; BENCH_BEFORE_V8_DEFAULTS=1 starts it with
// V8's defaults instead of the services' launch flags: BENCH_BEFORE_ROOT=. measures the flags), BENCH_CPU_PROF_DIR
// (profiles of every process, summarised by bench/profile-summary.mjs), BENCH_SEND_STATUS_WEBHOOK=1
// (the senders' accounts subscribe to message.status: support/deployment.mjs). Not part of `npm test`.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeployment, NATS, prepareSender, REDIS, STATUS_WEBHOOK } from './support/deployment.mjs';
import { runRounds, warmUp, DURATION_S } from './support/rounds.mjs';
import { killAll, pause, root, startService, stopAll } from './support/services.mjs';
import { median, spread } from './support/stats.mjs';

/** The all-in-one's environment (private networks allowed when BENCH_SEND_STATUS_WEBHOOK=1 points its webhook locally). */
function allInOneEnv(dataDir, adminToken) {
  const env = { JUMBE_DATA_DIR: dataDir, JUMBE_NETWORK: 'sandbox', JUMBE_ADMIN_TOKEN: adminToken };
  return STATUS_WEBHOOK ? { ...env, JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' } : env;
}

const GOALS = { allInOneVsBare: 0.6, distributedVsLimit: 0.75, p99VsBaseline: 3 };

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs')], { stdio: 'inherit' });
  const adminToken = `bench_${randomBytes(16).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'jumbe-bench-'));
  const dataDirBefore = mkdtempSync(join(tmpdir(), 'jumbe-bench-'));
  const deployment = await createDeployment(adminToken);
  const deployments = [deployment];
  try {
    const bare = await startService('bench/baseline-server.mjs', {}, 'bare-fastify');
    const nest = await startService('bench/nest-baseline-server.mjs', {}, 'bare-nest');
    const limitEnv = {
      BENCH_REDIS: REDIS,
      BENCH_NATS: NATS,
      BENCH_SUBJECT: `bench.limit.${randomBytes(4).toString('hex')}`,
      BENCH_KEY_PREFIX: deployment.env.JUMBE_DEPLOYMENT,
    };
    const responder = await startService('bench/bare-responder.mjs', limitEnv, 'bare-responder');
    const limit = await startService('bench/stack-limit-server.mjs', limitEnv, 'stack-limit');
    const nestLimit = await startService('bench/nest-limit-server.mjs', limitEnv, 'nest-limit');
    const allInOne = await startService(
      'dist/apps/all-in-one/src/main.js',
      allInOneEnv(dataDir, adminToken),
      'all-in-one',
    );
    const gateway = await startService('dist/apps/gateway/src/main.js', deployment.env, 'gateway');
    const worker = await startService('dist/apps/session-worker/src/main.js', deployment.env, 'worker');
    await pause(2_000); // the worker takes its shards
    const targets = [
      { name: 'bare', urls: bare.url, processes: { bare: bare.pid } },
      // The framework's floor (NestJS on Fastify, nothing else): a ceiling for all-in-one / bare.
      { name: 'nest', urls: nest.url, processes: { nest: nest.pid } },
      {
        name: 'all-in-one',
        urls: allInOne.url,
        key: await prepareSender(allInOne.url, adminToken),
        processes: { 'all-in-one': allInOne.pid },
      },
      { name: 'limit', urls: limit.url, processes: { server: limit.pid, responder: responder.pid } },
      // The limit's round trips behind NestJS: what the framework costs on the distributed path.
      {
        name: 'nest-limit',
        urls: nestLimit.url,
        processes: { server: nestLimit.pid, responder: responder.pid },
      },
      {
        name: 'distributed',
        urls: gateway.url,
        key: await prepareSender(gateway.url, adminToken),
        processes: { gateway: gateway.pid, worker: worker.pid },
      },
    ];
    // BENCH_BEFORE_ROOT=<another checkout, built>: its all-in-one and distributed pair run in the
    // same rounds, so a change is judged against the code before it on the same machine minutes.
    const beforeRoot = process.env.BENCH_BEFORE_ROOT;
    if (beforeRoot)
      targets.push(...(await beforeTargets(beforeRoot, adminToken, dataDirBefore, deployments)));
    // BENCH_TARGETS=bare,distributed: only these (a quick before/after of one change).
    const only = process.env.BENCH_TARGETS?.split(',');
    const chosen = only ? targets.filter((target) => only.includes(target.name)) : targets;
    for (const target of chosen) await warmUp(target);
    const { results, loads, idle } = await runRounds(chosen);
    console.log(`idle CPU (µs per second, subtracted): ${JSON.stringify(idle)}`);
    report(results, loads, idle);
  } finally {
    await stopAll();
    for (const each of deployments) await each.drop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dataDirBefore, { recursive: true, force: true });
  }
}

/** The all-in-one and distributed targets of another checkout (its dist/ built), named "… (before)". */
async function beforeTargets(beforeRoot, adminToken, dataDir, deployments) {
  const deployment = await createDeployment(adminToken);
  deployments.push(deployment);
  const options = { cwd: beforeRoot, v8Defaults: process.env.BENCH_BEFORE_V8_DEFAULTS === '1' };
  const allInOne = await startService(
    'dist/apps/all-in-one/src/main.js',
    allInOneEnv(dataDir, adminToken),
    'all-in-one-before',
    options,
  );
  const gateway = await startService(
    'dist/apps/gateway/src/main.js',
    deployment.env,
    'gateway-before',
    options,
  );
  const worker = await startService(
    'dist/apps/session-worker/src/main.js',
    deployment.env,
    'worker-before',
    options,
  );
  await pause(2_000);
  return [
    {
      name: 'all-in-one (before)',
      urls: allInOne.url,
      key: await prepareSender(allInOne.url, adminToken),
      processes: { 'all-in-one': allInOne.pid },
    },
    {
      name: 'distributed (before)',
      urls: gateway.url,
      key: await prepareSender(gateway.url, adminToken),
      processes: { gateway: gateway.pid, worker: worker.pid },
    },
  ];
}

function report(results, loads, idle) {
  const rounds = Object.values(results)[0].length;
  const ratio = (target, base, field = 'requestsPerSecond') =>
    results[target] && results[base]
      ? Array.from({ length: rounds }, (_, i) => results[target][i][field] / results[base][i][field])
      : [NaN];
  const cpuRatio = (target, base) =>
    results[target] && results[base]
      ? Array.from({ length: rounds }, (_, i) => results[target][i].cpu.total / results[base][i].cpu.total)
      : [NaN];
  const summary = Object.entries(results).map(([name, runs]) => ({
    target: name,
    'req/s median [min–max]': spread(runs.map((r) => r.requestsPerSecond)),
    'p99 ms': spread(runs.map((r) => r.p99Ms)),
    'CPU µs/request (sum)': spread(runs.map((r) => r.cpu.total)),
    'per process': JSON.stringify(
      Object.fromEntries(
        Object.keys(runs[0].cpu.perProcess).map((p) => [p, median(runs.map((r) => r.cpu.perProcess[p]))]),
      ),
    ),
    'redis+nats µs/request': median(
      runs.map((r) => Object.values(r.sharedCpu.perProcess).reduce((a, b) => a + b, 0)),
    ),
    'non-2xx': runs.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
  }));
  console.table(summary);
  const goals = [
    { ratio: 'all-in-one / bare', values: ratio('all-in-one', 'bare'), goal: `>= ${GOALS.allInOneVsBare}` },
    {
      ratio: 'nest / bare (the framework floor)',
      values: ratio('nest', 'bare'),
      goal: '(ceiling of all-in-one / bare)',
    },
    { ratio: 'all-in-one / nest', values: ratio('all-in-one', 'nest'), goal: '(reported)' },
    { ratio: 'CPU/request: nest / bare', values: cpuRatio('nest', 'bare'), goal: '(reported)' },
    { ratio: 'distributed / bare', values: ratio('distributed', 'bare'), goal: '(reported)' },
    { ratio: 'limit / bare', values: ratio('limit', 'bare'), goal: '(reported)' },
    {
      ratio: 'nest-limit / limit (the framework on the limit)',
      values: ratio('nest-limit', 'limit'),
      goal: '(ceiling of distributed / limit)',
    },
    { ratio: 'distributed / nest-limit', values: ratio('distributed', 'nest-limit'), goal: '(reported)' },
    {
      ratio: 'distributed / limit',
      values: ratio('distributed', 'limit'),
      goal: `>= ${GOALS.distributedVsLimit}`,
    },
    {
      ratio: 'all-in-one p99 / bare p99',
      values: ratio('all-in-one', 'bare', 'p99Ms'),
      goal: `<= ${GOALS.p99VsBaseline}`,
    },
    {
      ratio: 'distributed p99 / limit p99',
      values: ratio('distributed', 'limit', 'p99Ms'),
      goal: `<= ${GOALS.p99VsBaseline}`,
    },
    {
      ratio: 'distributed p99 / bare p99',
      values: ratio('distributed', 'bare', 'p99Ms'),
      goal: '(reported)',
    },
    {
      ratio: 'after / before: all-in-one CPU/request',
      values: cpuRatio('all-in-one', 'all-in-one (before)'),
      goal: '(BENCH_BEFORE_ROOT)',
    },
    {
      ratio: 'after / before: distributed CPU/request',
      values: cpuRatio('distributed', 'distributed (before)'),
      goal: '(BENCH_BEFORE_ROOT)',
    },
    {
      ratio: 'after / before: distributed req/s',
      values: ratio('distributed', 'distributed (before)'),
      goal: '(BENCH_BEFORE_ROOT)',
    },
    {
      ratio: 'after / before: all-in-one req/s',
      values: ratio('all-in-one', 'all-in-one (before)'),
      goal: '(BENCH_BEFORE_ROOT)',
    },
    {
      ratio: 'CPU/request: all-in-one / bare',
      values: cpuRatio('all-in-one', 'bare'),
      goal: '(reported; steadier than req/s)',
    },
    {
      ratio: 'CPU/request: distributed / limit',
      values: cpuRatio('distributed', 'limit'),
      goal: '(reported; steadier than req/s)',
    },
    {
      ratio: 'CPU/request: nest-limit / limit',
      values: cpuRatio('nest-limit', 'limit'),
      goal: '(reported; steadier than req/s)',
    },
    {
      ratio: 'CPU/request: distributed / nest-limit',
      values: cpuRatio('distributed', 'nest-limit'),
      goal: '(reported; steadier than req/s)',
    },
  ].map(({ ratio: name, values, goal }) => ({ ratio: name, 'median [min–max]': spread(values, 3), goal }));
  console.table(goals);
  console.log(
    `${rounds} rounds of ${DURATION_S} s per target, 50 connections; load average during the rounds ${spread(loads, 1)}`,
  );
  // BENCH_OUT=<file>: every round's raw figures, for BENCHMARKS.md.
  if (process.env.BENCH_OUT)
    writeFileSync(process.env.BENCH_OUT, JSON.stringify({ results, loads, idle, summary, goals }, null, 2));
}

main().catch(async (error) => {
  console.error(error);
  killAll();
  process.exit(1);
});
