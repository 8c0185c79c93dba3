// `npm run bench pipeline` (issue 32's sandbox goals): the distributed topology (gateway, session
// worker, webhook dispatcher as separate processes on PostgreSQL, NATS and Redis; sandbox network)
// delivering inbound messages to the verifying receiver (bench/inbound-receiver.mjs, its own
// process), against the bare client's POSTs to the same receiver in the same run:
//   keep-up      BENCH_PIPELINE_RATE (1000) messages a second offered through
//                `POST /api/v1/sandbox/inbound` for BENCH_DURATION_S (10) over BENCH_PIPELINE_SESSIONS
//                (20) sessions, after an 8 s warm-up at half the rate: delivered/s, p50/p99 from
//                injection to verified receipt, lost, duplicated (goal: kept up, p99 < 50 ms);
//   one session, sandbox  one session's messages injected one after another (each POST awaited) for
//                BENCH_DURATION_S: the rate the whole pipeline delivers them at, in order (the
//                receiver counts any message arriving after a later one), and its latency;
//   one session, backlog  BENCH_PIPELINE_BACKLOG (2000) events of one session published in order
//                straight into the JetStream stream while the receiver holds its answers, then
//                released: the events/s one session's in-order delivery drains at (the dispatcher
//                alone; a number replaying an offline backlog waits on exactly this).
//                (goal for one session: >= 200 events/s in order)
// CPU per event of each Jumbe process and PostgreSQL transactions per event beside each row.
// BENCH_CPU_PROF_DIR=<dir>: a CPU profile of every Jumbe process (summarise with
// bench/profile-summary.mjs). Not part of the test command. (`npm run bench inbound` is the fuller
// rate ladder of both topologies.)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { publishDirect } from './inbound-direct.mjs';
import { bareClient, inject, post } from './inbound-load.mjs';
import { distributed, start } from './inbound-topology.mjs';
import { cpuSeconds, loadAverage } from './support/cpu.mjs';
import { createAccount, createKey, linkSessions, ok } from './support/deployment.mjs';
import { delivered, receiverStats } from './support/receiver.mjs';
import { killAll, pause, root } from './support/services.mjs';

const RATE = Number(process.env.BENCH_PIPELINE_RATE ?? 1000);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const SESSIONS = Number(process.env.BENCH_PIPELINE_SESSIONS ?? 20);
const BACKLOG = Number(process.env.BENCH_PIPELINE_BACKLOG ?? 2000);
const WARMUP_S = Number(process.env.BENCH_INBOUND_WARMUP_S ?? 8);
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** CPU seconds of each Jumbe process and the database's transactions, now. */
async function usage(stack) {
  return {
    dispatcher: cpuSeconds(stack.deliverer.pid),
    injectors: stack.injectors.reduce((sum, child) => sum + cpuSeconds(child.pid), 0),
    transactions: await stack.transactions(),
  };
}

async function perEvent(stack, before, events) {
  await pause(1_500); // pg_stat_database is flushed about once a second
  const after = await usage(stack);
  const per = (value) => Number((value / Math.max(1, events)).toFixed(2));
  return {
    dispatcherCpuMs: per((after.dispatcher - before.dispatcher) * 1000),
    gatewayWorkerCpuMs: per((after.injectors - before.injectors) * 1000),
    pgTransactions: per(after.transactions - before.transactions),
  };
}

function row(name, accepted, stats, spanS, spent) {
  return {
    phase: name,
    offered: accepted,
    deliveredPerS: Math.round(stats.unique / spanS),
    p50Ms: stats.p50Ms,
    p99Ms: stats.p99Ms,
    lost: accepted - stats.unique,
    duplicated: stats.duplicates,
    outOfOrder: stats.outOfOrder,
    badSignatures: stats.badSignatures,
    ...spent,
    loadAvg: loadAverage(),
  };
}

/** RATE/s over SESSIONS sessions for DURATION_S through the sandbox injection route. */
async function keepUp(stack, target, receiver) {
  const phase = `keepup-${randomBytes(2).toString('hex')}`;
  const before = await usage(stack);
  const startedAt = performance.timeOrigin + performance.now();
  const injected = await inject({ ...target, phase, rate: RATE, durationS: DURATION_S });
  const stats = await delivered(receiver, phase, injected.accepted);
  const spanS = (stats.lastAt - startedAt) / 1000;
  const result = row(`${RATE}/s over ${SESSIONS} sessions`, injected.accepted, stats, spanS, {
    ...(await perEvent(stack, before, stats.unique)),
  });
  // Order holds per session, and these sessions' messages were injected 256 at a time: not checked.
  result.outOfOrder = null;
  result.keptUp =
    injected.accepted >= 0.95 * RATE * DURATION_S &&
    spanS < DURATION_S + 2 &&
    stats.unique === injected.accepted;
  return result;
}

/** One session's messages, each POST awaited before the next: in order by construction. */
async function oneSessionSequential(stack, target, receiver) {
  const phase = `serial-${randomBytes(2).toString('hex')}`;
  const before = await usage(stack);
  const startedAt = performance.timeOrigin + performance.now();
  const injected = await inject({
    ...target,
    sessionIds: target.sessionIds.slice(0, 1),
    phase,
    rate: Infinity,
    durationS: DURATION_S,
    maxInFlight: 1,
  });
  const stats = await delivered(receiver, phase, injected.accepted);
  const spanS = (stats.lastAt - startedAt) / 1000;
  return {
    ...row('one session, POSTs one after another', injected.accepted, stats, spanS, {
      ...(await perEvent(stack, before, stats.unique)),
    }),
    injectedPerS: Math.round(injected.accepted / injected.seconds),
  };
}

/** One session's backlog published in order into the stream while the receiver holds, then released. */
async function oneSessionBacklog(stack, into, receiver) {
  const phase = `backlog-${randomBytes(2).toString('hex')}`;
  await post(agent, `${receiver}/control/hold?on=1`, '');
  const heldAt = Date.now();
  // At most 6 s of publishing: a held delivery times out at 10 s.
  const published = await publishDirect({
    ...into,
    sessionIds: into.sessionIds.slice(0, 1),
    phase,
    rate: Infinity,
    durationS: 6,
    maxInFlight: 1,
    limit: BACKLOG,
  });
  const accepted = Math.min(published.accepted, BACKLOG);
  while ((await stack.backlog()) < accepted - 1 && Date.now() - heldAt < 8_000) await pause(100);
  const before = await receiverStats(receiver, phase);
  const spentBefore = await usage(stack);
  const releasedAt = performance.timeOrigin + performance.now();
  await post(agent, `${receiver}/control/hold?on=0`, '');
  const stats = await delivered(receiver, phase, accepted);
  const drained = stats.receipts - before.receipts;
  const spanS = (stats.lastAt - releasedAt) / 1000;
  return {
    ...row(`one session, backlog of ${accepted} drained`, accepted, stats, spanS, {
      ...(await perEvent(stack, spentBefore, drained)),
    }),
    deliveredPerS: Math.round(drained / spanS),
    p50Ms: null,
    p99Ms: null,
  };
}

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const adminToken = `bench_${randomBytes(16).toString('hex')}`;
  const receiver = await start('bench/inbound-receiver.mjs', {}, 'receiver', { profile: false });
  const stack = await distributed(adminToken);
  const rows = [];
  try {
    const accountId = await createAccount(stack.gateway, adminToken, { maxSessions: SESSIONS });
    const key = await createKey(stack.gateway, adminToken, accountId);
    const sessionIds = Array.from({ length: SESSIONS }, (_, i) => `line${i}`);
    await linkSessions(stack.gateway, key, sessionIds, 1);
    const saved = await ok(
      `${stack.gateway}/api/v1/webhook`,
      'PATCH',
      { url: `${receiver.url}/hook`, enabled: true },
      { 'x-api-key': key },
    );
    await post(agent, `${receiver.url}/control/secret`, saved.secret);
    const target = { gateway: stack.gateway, key, sessionIds };
    const bare = await bareClient({
      receiver: receiver.url,
      secret: saved.secret,
      phase: 'bare',
      durationS: 5,
    });
    rows.push({ phase: 'bare client (baseline)', deliveredPerS: bare.perSecond, loadAvg: loadAverage() });
    const warmup = await inject({ ...target, phase: 'warmup', rate: RATE / 2, durationS: WARMUP_S });
    await delivered(receiver.url, 'warmup', warmup.accepted);
    rows.push(await keepUp(stack, target, receiver.url));
    rows.push(await oneSessionSequential(stack, target, receiver.url));
    rows.push(await oneSessionBacklog(stack, { stream: stack.direct, accountId, sessionIds }, receiver.url));
  } finally {
    await stack.stop();
    receiver.child.kill('SIGTERM');
    agent.destroy();
  }
  for (const each of rows) each.ofBare = Number((each.deliveredPerS / rows[0].deliveredPerS).toFixed(3));
  console.table(rows);
  console.log(
    'goals (issue 32): keeps up with 1,000/s over 20 sessions with p99 < 50 ms, 0 lost, 0 duplicated; one session >= 200 events/s in order',
  );
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exit(1);
});
