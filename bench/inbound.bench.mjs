// `npm run bench inbound`: inbound message → signed webhook POST. A receiver in its own process
// verifies every signature; messages are injected through POST /api/v1/sandbox/inbound,
// round-robin over 20 sessions of one account, at fixed rates (BENCH_INBOUND_RATES, default
// "1000,2000,3000,4000,6000", BENCH_DURATION_S seconds each, stopping after the first rate not
// kept up with), then as a backlog drained at full speed. In the distributed topology the same
// steps run again with events published straight into the JetStream stream (bench/inbound-direct.mjs):
// the dispatcher alone, free of the injection path (BENCH_INBOUND_PATHS, default "sandbox,direct").
// Beside it, the bare-client baseline: 20 loops POSTing the same kind of signed event to the same
// receiver. Both topologies (BENCH_INBOUND_TOPOLOGIES, default "all-in-one,distributed").
// Not part of the test command.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { publishDirect } from './inbound-direct.mjs';
import { bareClient, inject, post } from './inbound-load.mjs';
import { now } from './support/paced.mjs';
import { allInOne, distributed, start } from './inbound-topology.mjs';
import { cpuSeconds } from './support/cpu.mjs';
import { createAccount, createKey, linkSessions, ok } from './support/deployment.mjs';
import { delivered, receiverStats } from './support/receiver.mjs';
import { killAll, pause, root } from './support/services.mjs';

const RATES = (process.env.BENCH_INBOUND_RATES ?? '1000,2000,3000,4000,6000').split(',').map(Number);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
/**
 * Seconds of injection at 500/s before the first step: a fresh process runs unoptimised code, and
 * after 2 s the first 1,000/s step still spent its first 0.5–2.5 s catching up (BENCHMARKS.md).
 */
const WARMUP_S = Number(process.env.BENCH_INBOUND_WARMUP_S ?? 8);
const TOPOLOGIES = (process.env.BENCH_INBOUND_TOPOLOGIES ?? 'all-in-one,distributed').split(',');
/** `sandbox`: injected through POST /sandbox/inbound; `direct`: published straight into the stream (distributed only). */
const PATHS = (process.env.BENCH_INBOUND_PATHS ?? 'sandbox,direct').split(',');
/** Sessions the load is spread over (the figures are for 20; one session's events go out one at a time). */
const SESSIONS = Number(process.env.BENCH_INBOUND_SESSIONS ?? 20);
const DRAIN_BACKLOG_S = 5;
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

/** An account with 20 linked sandbox sessions and its webhook at the receiver; the receiver knows the secret. */
async function prepare(gateway, adminToken, receiver) {
  const accountId = await createAccount(gateway, adminToken, { maxSessions: SESSIONS });
  const key = await createKey(gateway, adminToken, accountId);
  const sessionIds = Array.from({ length: SESSIONS }, (_, i) => `line${i}`);
  await linkSessions(gateway, key, sessionIds, 1);
  const saved = await ok(
    `${gateway}/api/v1/webhook`,
    'PATCH',
    { url: `${receiver}/hook`, enabled: true },
    { 'x-api-key': key },
  );
  await post(agent, `${receiver}/control/secret`, saved.secret);
  return { key, sessionIds, secret: saved.secret, accountId };
}

/** What the delivering process and the database have done so far: CPU seconds, transactions. */
async function usage(started) {
  const own = process.cpuUsage();
  return {
    cpu: cpuSeconds(started.deliverer.pid),
    // This process: the load generator (injection or publishing), competing for the same cores.
    loadCpu: (own.user + own.system) / 1e6,
    // The injection path's processes (gateway and session worker) when they are apart from it.
    injectorCpu: started.injectors.reduce((sum, child) => sum + cpuSeconds(child.pid), 0),
    transactions: await started.transactions(),
  };
}

/**
 * CPU and database transactions per delivered event since `before`: figures that hold on a busy
 * machine, where rates and latencies swing with the other load. (The database's counters are
 * flushed about once a second, hence the pause.)
 */
async function usageSince(started, before, events) {
  await pause(1_500);
  const after = await usage(started);
  const spentCpu = after.cpu - before.cpu;
  return {
    cpuSeconds: spentCpu,
    loadCpuSeconds: after.loadCpu - before.loadCpu,
    perEvent: {
      cpuMsPerEvent: Number(((spentCpu * 1000) / events).toFixed(2)),
      injectorCpuMsPerEvent: Number((((after.injectorCpu - before.injectorCpu) * 1000) / events).toFixed(2)),
      pgTransactionsPerEvent: Number(((after.transactions - before.transactions) / events).toFixed(2)),
    },
  };
}

/**
 * One fixed-rate step: its figures, and whether every message arrived while the rate was held.
 * `send` injects (through the sandbox, or straight into the stream).
 */
async function step(send, receiver, started, rate) {
  const phase = `rate${rate}-${randomBytes(2).toString('hex')}`;
  const usageBefore = await usage(started);
  const startedAt = now();
  const stepStartedAtMs = Date.now();
  const injected = await send({ phase, rate, durationS: DURATION_S });
  const stats = await delivered(receiver, phase, injected.accepted);
  const spent = await usageSince(started, usageBefore, stats.unique);
  const seconds = (stats.lastAt - startedAt) / 1000;
  const perSecond = Math.round(stats.unique / seconds);
  // BENCH_INBOUND_TAIL=1: where the step's slow deliveries sit in time (per 500 ms of injection).
  if (process.env.BENCH_INBOUND_TAIL === '1')
    console.log(
      `${send.label} ${rate}/s tail (started ${new Date(stepStartedAtMs).toISOString()})`,
      JSON.stringify(stats.tail.map((s) => [s.fromMs, s.worstMs, s.over50])),
    );
  const kept =
    injected.accepted >= 0.95 * rate * DURATION_S && stats.lastAt - startedAt < (DURATION_S + 2) * 1000;
  return {
    phase: `${send.label} ${rate}/s`,
    injectedPerSecond: Math.round(injected.accepted / injected.seconds),
    refused: JSON.stringify(injected.refused),
    deliveriesPerSecond: perSecond,
    p50Ms: stats.p50Ms,
    p99Ms: stats.p99Ms,
    lost: injected.accepted - stats.unique,
    duplicated: stats.duplicates,
    badSignatures: stats.badSignatures,
    delivererCpu: `${Math.round((spent.cpuSeconds / seconds) * 100)}%`,
    loadGenCpu: `${Math.round((spent.loadCpuSeconds / seconds) * 100)}%`,
    loopLateMs: started.loopLag(stepStartedAtMs, stepStartedAtMs + seconds * 1000),
    ...spent.perEvent,
    keptUp: kept && stats.unique === injected.accepted,
  };
}

/**
 * A backlog built while the receiver holds its answers (each session's first delivery waits), then
 * delivered as fast as the dispatcher can: the rate counts what arrives after the release. The
 * release waits until the log holds the whole backlog (the sandbox publishes each session's
 * messages one after another), but no longer than 8 s: held deliveries time out at 10 s.
 */
async function drain(send, receiver, started) {
  const phase = `drain-${randomBytes(2).toString('hex')}`;
  await post(agent, `${receiver}/control/hold?on=1`, '');
  const heldAt = Date.now();
  const injected = await send({ phase, rate: Infinity, durationS: DRAIN_BACKLOG_S, maxInFlight: 64 });
  let waiting = await started.backlog();
  while (waiting < injected.accepted - SESSIONS && Date.now() - heldAt < 8_000) {
    await pause(100);
    waiting = await started.backlog();
  }
  const before = await receiverStats(receiver, phase);
  const usageBefore = await usage(started);
  const releasedAt = now();
  const releasedAtMs = Date.now();
  await post(agent, `${receiver}/control/hold?on=0`, '');
  const stats = await delivered(receiver, phase, injected.accepted);
  const spent = await usageSince(started, usageBefore, stats.receipts - before.receipts);
  const seconds = (stats.lastAt - releasedAt) / 1000;
  return {
    phase: `${send.label} drain ${waiting} of ${injected.accepted}`,
    injectedPerSecond: Math.round(injected.accepted / injected.seconds),
    refused: JSON.stringify(injected.refused),
    deliveriesPerSecond: Math.round((stats.receipts - before.receipts) / seconds),
    p50Ms: null,
    p99Ms: null,
    lost: injected.accepted - stats.unique,
    duplicated: stats.duplicates,
    badSignatures: stats.badSignatures,
    delivererCpu: `${Math.round((spent.cpuSeconds / seconds) * 100)}%`,
    ...spent.perEvent,
    recordedPostMs: await started.postMs(releasedAtMs),
    loopLateMs: started.loopLag(releasedAtMs, releasedAtMs + seconds * 1000),
    keptUp: null,
  };
}

async function baseline(receiver, secret, label, keepAlive = true) {
  const phase = `baseline-${randomBytes(2).toString('hex')}`;
  const result = await bareClient({ receiver, secret, phase, durationS: Math.min(DURATION_S, 5), keepAlive });
  const stats = await receiverStats(receiver, phase);
  return {
    phase: label,
    deliveriesPerSecond: result.perSecond,
    p50Ms: stats.p50Ms,
    p99Ms: stats.p99Ms,
    badSignatures: stats.badSignatures,
  };
}

async function topology(name, adminToken, receiver) {
  const started = name === 'all-in-one' ? await allInOne(adminToken) : await distributed(adminToken);
  const rows = [];
  try {
    const { key, sessionIds, secret, accountId } = await prepare(started.gateway, adminToken, receiver);
    const target = { gateway: started.gateway, key, sessionIds };
    const senders = [];
    if (PATHS.includes('sandbox'))
      senders.push(Object.assign((load) => inject({ ...target, ...load }), { label: 'sandbox' }));
    if (PATHS.includes('direct') && started.direct) {
      const into = { stream: started.direct, accountId, sessionIds };
      senders.push(Object.assign((load) => publishDirect({ ...into, ...load }), { label: 'stream' }));
    }
    rows.push(await baseline(receiver, secret, 'bare client, before'));
    const warmup = await inject({ ...target, phase: 'warmup', rate: 500, durationS: WARMUP_S });
    await delivered(receiver, 'warmup', warmup.accepted);
    for (const send of senders) {
      for (const rate of RATES) {
        const row = await step(send, receiver, started, rate);
        rows.push(row);
        if (!row.keptUp) break;
      }
      rows.push(await drain(send, receiver, started));
    }
    rows.push(await baseline(receiver, secret, 'bare client, after'));
    rows.push(await baseline(receiver, secret, 'bare client, new connection each', false));
  } finally {
    await started.stop();
  }
  const [before, after] = rows.filter(
    (row) => row.phase.startsWith('bare client, ') && !row.phase.includes('new'),
  );
  const base = (before.deliveriesPerSecond + after.deliveriesPerSecond) / 2;
  for (const row of rows) row.ratio = Number((row.deliveriesPerSecond / base).toFixed(2));
  console.log(`\n${name}`);
  console.table(rows);
  // BENCH_JSON_OUT=<file>: the rows appended as one JSON line per topology, for tables and comparisons.
  if (process.env.BENCH_JSON_OUT) {
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    appendFileSync(
      process.env.BENCH_JSON_OUT,
      `${JSON.stringify({ topology: name, at: new Date(), load, rows })}\n`,
    );
  }
  return rows;
}

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const adminToken = `bench_${randomBytes(16).toString('hex')}`;
  const receiver = await start('bench/inbound-receiver.mjs', {}, 'receiver', { profile: false });
  for (const name of TOPOLOGIES) await topology(name, adminToken, receiver.url);
  receiver.child.kill('SIGTERM');
  console.log(
    'goals: >= 3000 deliveries/s per dispatcher and >= 0.5 of the bare client (kept-alive, average of before/after); p99 < 50 ms at 1000/s; 0 lost, 0 duplicated',
  );
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exit(1);
});
