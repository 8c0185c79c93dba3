// `npm run bench capacity [-- --sessions N] [--profile]` (issue 32): what one session worker does
// with N real Baileys sessions (JUMBE_NETWORK=whatsapp) on the WhatsApp emulator, per kind of
// message, against what libsignal itself spends on the same Signal work, measured alone in the
// same run (bench/libsignal-baseline.mjs). Processes, each its own: emulator
// (bench/emulator-process.mjs), gateway, one session worker, webhook dispatcher, verifying receiver
// (bench/inbound-receiver.mjs). After linking N sessions by QR through the API, the phases:
//   inbound-first   contact 0 writes once to every session: a Signal pre-key message each;
//   inbound-steady  contact 0 writes BENCH_CAPACITY_PER_SESSION more texts to every session;
//   (warm-up)       every session replies once to contact 0 (its own phone's session made);
//   outbound-known  PER_SESSION texts from every session to contact 0, through the gateway's
//                   `POST /api/v1/messages/text` (BENCH_CAPACITY_PARALLEL requests in flight);
//   outbound-new    one text from every session to a contact it never wrote to (usync, pre-key
//                   fetch, a new Signal session), the same API;
//   group-first     session 0 sends a text to a group of BENCH_CAPACITY_GROUP_MEMBERS contacts
//                   (metadata, devices, pre-keys and a sender key for every member);
//   group-again     and a second text to it (the sender key already distributed).
// Per phase: messages done per second (inbound: signed webhooks verified at the receiver; outbound:
// texts the emulator's phones decrypted), p50/p99, nothing lost or duplicated, CPU ms per message of
// the worker (and of gateway, dispatcher, emulator), the worker's CPU over libsignal's for the
// same message, the worker's CPU over bare Baileys' (bench/baileys-baseline.mjs: the pinned Baileys
// alone, one bare makeWASocket per session with in-memory auth on a fresh emulator, the same
// messages, no Jumbe; run first, in the same run: Baileys' own floor against what Jumbe adds;
// BENCH_CAPACITY_BAILEYS=0 skips it), and PostgreSQL round trips per message counted in each Jumbe process by a pg
// client hook (bench/support/pg-round-trips.cjs: queries, their summed wait, pool waits, the
// statements), and transactions per message (pg_stat_database). `--profile` (or
// BENCH_CAPACITY_PROFILE=1) takes a CPU profile of the worker per phase (bench/support/
// phase-profile.cjs) into BENCH_PROFILE_DIR (/tmp/jumbe-bench-capacity) and summarises each with
// bench/profile-summary.mjs (and the bare Baileys process's, per phase, likewise). Knobs: --sessions / BENCH_CAPACITY_SESSIONS (1000),
// BENCH_CAPACITY_PER_SESSION (3), BENCH_CAPACITY_PARALLEL (64), BENCH_CAPACITY_GROUP_MEMBERS (50),
// BENCH_LINK_PARALLEL (6), BENCH_LIBSIGNAL_PAIRS (200), BENCH_CAPACITY_IDLE_S (10: the idle CPU
// subtracted from each phase is measured over this long), BENCH_CAPACITY_POOL_SIZE (the Jumbe
// processes' JUMBE_DATABASE_POOL_SIZE; the product's 10 when unset), BENCH_LOG_DIR,
// BENCH_OUT=<file> (JSON).
// Read CPU per message with at least ~1,000 messages a phase (BENCH_CAPACITY_PER_SESSION=20 at 50
// sessions): at 150 the figures and profiles are mostly cold code (a warm plain-text quote costs
// ~5 µs, the cold profile charged it ~270 µs). Not part of the test command.
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { baileysCosts } from './baileys-baseline.mjs';
import { libsignalCosts } from './libsignal-baseline.mjs';
import { post } from './inbound-load.mjs';
import { cpuSeconds, loadAverage } from './support/cpu.mjs';
import { call, createAccount, createDeployment, createKey, ok } from './support/deployment.mjs';
import { delivered } from './support/receiver.mjs';
import { killAll, pause, root, startService } from './support/services.mjs';

const flag = (name) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : (process.argv[at + 1] ?? '');
};
const SESSIONS = Number(flag('sessions') ?? process.env.BENCH_CAPACITY_SESSIONS ?? 1000);
const PER_SESSION = Number(process.env.BENCH_CAPACITY_PER_SESSION ?? 3);
const PARALLEL = Number(process.env.BENCH_CAPACITY_PARALLEL ?? 64);
const GROUP_MEMBERS = Number(process.env.BENCH_CAPACITY_GROUP_MEMBERS ?? 50);
const LINK_PARALLEL = Number(process.env.BENCH_LINK_PARALLEL ?? 6);
const LIBSIGNAL_PAIRS = Number(process.env.BENCH_LIBSIGNAL_PAIRS ?? 200);
const IDLE_S = Number(process.env.BENCH_CAPACITY_IDLE_S ?? 10);
/** The worker's JUMBE_DATABASE_POOL_SIZE (the product's default, 10, when unset). */
const POOL_SIZE = process.env.BENCH_CAPACITY_POOL_SIZE;
const PROFILE = process.argv.includes('--profile') || process.env.BENCH_CAPACITY_PROFILE === '1';
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR ?? '/tmp/jumbe-bench-capacity';
const BAILEYS_BASELINE = process.env.BENCH_CAPACITY_BAILEYS !== '0';
const LOG_DIR = process.env.BENCH_LOG_DIR ?? '/tmp/jumbe-bench-capacity';
const TRUST = join(root, 'dist/libs/whatsapp-emulator/src/trust-preload.js');
const PG_HOOK = join(root, 'bench/support/pg-round-trips.cjs');
const PHASE_PROFILE = join(root, 'bench/support/phase-profile.cjs');
/** A phase ends when everything arrived, or nothing more did for this long. */
const IDLE_MS = 30_000;
mkdirSync(LOG_DIR, { recursive: true });
mkdirSync(PROFILE_DIR, { recursive: true });

const sessionPhone = (i) => `25470${String(i).padStart(7, '0')}`;
const CONTACT = '254720000000'; // contact 0 of bench/emulator-process.mjs's `send`
const strangerPhone = (i) => `25473${String(i).padStart(7, '0')}`;
const memberPhone = (i) => `25474${String(i).padStart(7, '0')}`;
const seconds = (ms) => Number((ms / 1000).toFixed(1));
const round = (value, digits = 2) => Number(value.toFixed(digits));

// ── Processes ──

const emulators = new Set();

function startEmulator() {
  // Its output (libsignal's console lines among it) goes to its log, not the bench's.
  const child = fork(join(root, 'bench/emulator-process.mjs'), [], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const log = createWriteStream(join(LOG_DIR, 'emulator.log'));
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  emulators.add(child);
  child.once('exit', () => emulators.delete(child));
  const waiting = new Map();
  let nextId = 1;
  child.on('message', ({ id, result, error }) => {
    const waiter = waiting.get(id);
    waiting.delete(id);
    if (error) waiter?.reject(new Error(`emulator: ${error}`));
    else waiter?.resolve(result);
  });
  const ask = (op, args) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      child.send({ id, op, args });
    });
  return { child, ask };
}

/**
 * A service with the pg round-trip hook preloaded: `roundTrips()` asks it (SIGUSR2) for its
 * cumulative counts; `profileToggle()` starts or stops its per-phase CPU profile (SIGWINCH).
 */
async function startCounted(script, env, label, nodeOptions = []) {
  let waiter = null;
  let profileWaiter = null;
  const log = { allShardsAt: 0, leaseDrops: 0, errors: 0 };
  const service = await startService(script, env, label, {
    quiet: true,
    logDir: LOG_DIR,
    profile: false,
    nodeOptions: ['--require', PG_HOOK, ...nodeOptions],
    onLine: (line) => {
      if (line.startsWith('{"pgRoundTrips":')) waiter?.(JSON.parse(line).pgRoundTrips);
      if (line.startsWith('{"profileWindow":"written"')) profileWaiter?.(JSON.parse(line).file);
      if (line.includes('"shardsHeld":64') && !log.allShardsAt) log.allShardsAt = Date.now();
      if (line.includes('could not be renewed in time')) log.leaseDrops += 1;
      if (/"level":(50|60)/.test(line)) log.errors += 1;
    },
  });
  const roundTrips = () =>
    new Promise((done) => {
      waiter = (counts) => {
        waiter = null;
        done(counts);
      };
      service.child.kill('SIGUSR2');
    });
  const profileStop = () =>
    new Promise((done) => {
      profileWaiter = (file) => {
        profileWaiter = null;
        done(file);
      };
      service.child.kill('SIGWINCH');
    });
  return { ...service, log, roundTrips, profileStart: () => service.child.kill('SIGWINCH'), profileStop };
}

async function until(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await pause(200);
  }
}

async function inParallel(items, parallel, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index], index);
      }
    }),
  );
}

/** Links sessions s0..s(N-1) by QR through the API (the emulated phones scan), retrying a busy worker's 5xx. */
async function link(gateway, key, emulator, count) {
  const headers = { 'x-api-key': key };
  const get = (path) => call(`${gateway}/api/v1/${path}`, 'GET', undefined, headers);
  let linked = 0;
  await inParallel(
    Array.from({ length: count }, (_, i) => i),
    LINK_PARALLEL,
    async (index) => {
      const sessionId = `s${index}`;
      for (let tries = 1; ; tries += 1) {
        try {
          const status = await get(`session/status?sessionId=${sessionId}`);
          if (status.body?.data?.state !== 'connected') {
            await ok(`${gateway}/api/v1/session/start`, 'POST', { sessionId }, headers);
            const qr = await until(
              async () => {
                const shown = await get(`session/qr?sessionId=${sessionId}`);
                return shown.body?.data?.state === 'qr_ready' && shown.body.data.qr;
              },
              60_000,
              `QR of ${sessionId}`,
            );
            await emulator.ask('scan', { phone: sessionPhone(index), qr });
            await until(
              async () =>
                (await get(`session/status?sessionId=${sessionId}`)).body?.data?.state === 'connected',
              120_000,
              `${sessionId} connected`,
            );
          }
          break;
        } catch (error) {
          if (tries >= 20) throw new Error(`linking ${sessionId}: ${error.message}`);
          await pause(2_000);
        }
      }
      linked += 1;
      if (linked % 50 === 0) console.log(JSON.stringify({ linked, loadAvg: loadAverage() }));
    },
  );
}

async function transactions(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

// ── Measuring a phase ──

/** CPU, pg round trips and transactions of every process now. */
async function snapshot(stack) {
  const counts = {};
  for (const [name, service] of Object.entries(stack.counted)) counts[name] = await service.roundTrips();
  const cpu = {};
  for (const [name, pid] of Object.entries(stack.pids)) cpu[name] = cpuSeconds(pid);
  return { counts, cpu, transactions: await transactions(stack.databaseUrl), at: Date.now() };
}

/**
 * The figures of one phase between two snapshots, per message done. CPU is net of what each
 * process spends idle with every session linked (`idleCpuPerS`, measured before the phases: keep-
 * alives, lease upkeep, timers), so a phase of one group send is not its few seconds of idling.
 */
function perMessage(before, after, messages, libsignalUs, idleCpuPerS, baileysMs) {
  const per = (value) => round(value / Math.max(1, messages));
  const spanS = (after.at - before.at) / 1000;
  const row = {};
  for (const name of Object.keys(before.cpu)) {
    const spent = after.cpu[name] - before.cpu[name];
    row[`${name}CpuMs`] = per(Math.max(0, spent - idleCpuPerS[name] * spanS) * 1000);
  }
  row.workerGrossCpuMs = per((after.cpu.worker - before.cpu.worker) * 1000);
  row.libsignalMs = round(libsignalUs / 1000, 3);
  row.workerOverLibsignal = libsignalUs ? round(row.workerCpuMs / (libsignalUs / 1000), 1) : null;
  // Bare Baileys' CPU for the same message: what of the worker's is Baileys' floor, what Jumbe's.
  row.baileysMs = baileysMs ?? null;
  row.workerOverBaileys = baileysMs ? round(row.workerCpuMs / baileysMs, 1) : null;
  row.baileysOverLibsignal = baileysMs && libsignalUs ? round(baileysMs / (libsignalUs / 1000), 1) : null;
  for (const [name, counts] of Object.entries(after.counts)) {
    const was = before.counts[name];
    row[`${name}PgQueries`] = per(counts.queries - was.queries);
    row[`${name}PgWaitMs`] = per(counts.queryMs - was.queryMs);
    row[`${name}PoolWaitMs`] = per(counts.poolWaitMs - was.poolWaitMs);
  }
  row.pgTransactions = per(after.transactions - before.transactions);
  return row;
}

/** The worker's statements over a phase, per message, most frequent first. */
function statementsOf(before, after, messages, process = 'worker') {
  const was = before.counts[process].byStatement;
  return Object.entries(after.counts[process].byStatement)
    .map(([text, [count, ms]]) => [text, count - (was[text]?.[0] ?? 0), ms - (was[text]?.[1] ?? 0)])
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([text, count, ms]) => ({
      statement: text,
      perMessage: round(count / Math.max(1, messages)),
      msPerMessage: round(ms / Math.max(1, messages)),
    }));
}

/** Runs `work` as one phase: snapshots around it, the worker profiled when asked. */
async function measured(stack, name, work) {
  if (PROFILE) stack.worker.profileStart();
  const before = await snapshot(stack);
  const load = loadAverage();
  const result = await work();
  // pg_stat_database is updated by each backend shortly after a transaction ends.
  await pause(1_000);
  const after = await snapshot(stack);
  if (PROFILE) {
    const file = await stack.worker.profileStop();
    const named = join(PROFILE_DIR, `worker-${name}.cpuprofile`);
    renameSync(file, named);
    stack.profiles.push(named);
  }
  // Per message sent (a group text is one message, however many phones it reaches) or received.
  const messages = result.sends ?? result.delivered;
  const row = {
    phase: name,
    ...result,
    ...perMessage(
      before,
      after,
      messages,
      stack.libsignal.perMessage[result.libsignalKind] ?? 0,
      stack.idleCpuPerS,
      stack.baileys?.rows.find((baseline) => baseline.phase === name)?.baileysCpuMs,
    ),
    loadAvg: load,
  };
  delete row.libsignalKind;
  stack.statements[name] = statementsOf(before, after, messages);
  console.log(JSON.stringify(row));
  return row;
}

/** Contact(s) of the emulator write to the sessions; what the receiver verified. */
async function inbound(stack, phase, count, libsignalKind) {
  const { startedAt } = await stack.emulator.ask('send', { phase, phones: stack.phones, count, contacts: 1 });
  const stats = await delivered(stack.receiver, phase, count, { idleMs: IDLE_MS, pollMs: 250 });
  const spanS = (stats.lastAt - startedAt) / 1000;
  return {
    messages: count,
    delivered: stats.unique,
    duplicates: stats.duplicates,
    perSecond: Math.round(stats.unique / spanS),
    p50Ms: stats.p50Ms,
    p99Ms: stats.p99Ms,
    libsignalKind,
  };
}

/** Texts sent through the gateway's API; what the emulator's phones decrypted. */
async function outbound(stack, phase, jobs, libsignalKind, parallel = PARALLEL) {
  // A new agent per phase: kept-alive sockets idle between phases are closed by the gateway.
  const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
  const url = `${stack.gateway}/api/v1/messages/text`;
  const headers = { 'x-api-key': stack.key };
  const startedAt = Date.now();
  const refused = {};
  let accepted = 0;
  await inParallel(jobs, parallel, async ({ sessionId, to }, seq) => {
    const status = await post(agent, url, { sessionId, to, text: `${phase} ${seq} ${Date.now()}` }, headers);
    if (status >= 200 && status < 300) accepted += 1;
    else refused[status] = (refused[status] ?? 0) + 1;
  });
  const answeredMs = Date.now() - startedAt;
  agent.destroy();
  // Each text reaches one phone (a contact), or every member's and the sender's own phone (a group).
  const expected = jobs.reduce((sum, job) => sum + (job.recipients ?? 1), 0);
  let last = await stack.emulator.ask('received', { phase });
  for (let progressAt = Date.now(); last.unique < expected && Date.now() - progressAt < IDLE_MS;) {
    await pause(250);
    const next = await stack.emulator.ask('received', { phase });
    if (next.receipts !== last.receipts) progressAt = Date.now();
    last = next;
  }
  const spanS = (Math.max(last.lastAt, startedAt + answeredMs) - startedAt) / 1000;
  return {
    messages: jobs.length,
    sends: accepted,
    refused: JSON.stringify(refused),
    delivered: last.unique,
    duplicates: last.duplicates,
    perSecond: Math.round(last.unique / spanS),
    answeredS: seconds(answeredMs),
    p50Ms: last.p50Ms,
    p99Ms: last.p99Ms,
    libsignalKind,
  };
}

// ── The run ──

async function run(adminToken, libsignal, baileys) {
  const deployment = await createDeployment(adminToken);
  const emulator = startEmulator();
  const started = [];
  try {
    const { url } = await emulator.ask('start');
    const env = {
      ...deployment.env,
      JUMBE_NETWORK: 'whatsapp',
      JUMBE_WHATSAPP_URL: url,
      JUMBE_WHATSAPP_VERSION: '2.3000.1027934701',
      JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
      JUMBE_CONNECT_SPACING_MS: '0',
      ...(POOL_SIZE ? { JUMBE_DATABASE_POOL_SIZE: POOL_SIZE } : {}),
    };
    const receiver = await startService('bench/inbound-receiver.mjs', {}, 'receiver', {
      quiet: true,
      profile: false,
    });
    started.push(receiver);
    const gateway = await startCounted('dist/apps/gateway/src/main.js', env, 'gateway');
    started.push(gateway);
    const dispatcher = await startCounted('dist/apps/webhook-dispatcher/src/main.js', env, 'dispatcher');
    started.push(dispatcher);
    const workerOptions = ['--require', TRUST, ...(PROFILE ? ['--require', PHASE_PROFILE] : [])];
    const worker = await startCounted('dist/apps/session-worker/src/main.js', env, 'worker', workerOptions);
    started.push(worker);
    await until(async () => worker.log.allShardsAt, 60_000, 'the worker holds every shard');

    const accountId = await createAccount(gateway.url, adminToken, { maxSessions: SESSIONS });
    const key = await createKey(gateway.url, adminToken, accountId);
    const saved = await ok(
      `${gateway.url}/api/v1/webhook`,
      'PATCH',
      { url: `${receiver.url}/hook`, enabled: true },
      { 'x-api-key': key },
    );
    await fetch(`${receiver.url}/control/secret`, { method: 'POST', body: saved.secret });

    const linkStarted = Date.now();
    await link(gateway.url, key, emulator, SESSIONS);
    const linkS = seconds(Date.now() - linkStarted);
    console.log(JSON.stringify({ sessions: SESSIONS, linkS, loadAvg: loadAverage() }));
    const phones = Array.from({ length: SESSIONS }, (_, i) => sessionPhone(i));
    const pids = {
      worker: worker.child.pid,
      gateway: gateway.child.pid,
      dispatcher: dispatcher.child.pid,
      emulator: emulator.child.pid,
    };
    await emulator.ask('contacts', {
      phones: [
        ...Array.from({ length: SESSIONS }, (_, i) => strangerPhone(i)),
        ...Array.from({ length: GROUP_MEMBERS }, (_, i) => memberPhone(i)),
      ],
    });
    await pause(5_000);
    // What each process spends idle with every session linked, over BENCH_CAPACITY_IDLE_S.
    const idleFrom = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
    await pause(IDLE_S * 1000);
    const idleCpuPerS = Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [name, (cpuSeconds(pid) - idleFrom[name]) / IDLE_S]),
    );
    const idleMs = Object.entries(idleCpuPerS).map(([name, cpu]) => [name, Math.round(cpu * 1000)]);
    console.log(JSON.stringify({ idleCpuMsPerS: Object.fromEntries(idleMs) }));

    const stack = {
      idleCpuPerS,
      emulator,
      gateway: gateway.url,
      receiver: receiver.url,
      key,
      phones,
      worker,
      libsignal,
      baileys,
      databaseUrl: env.JUMBE_DATABASE_URL,
      counted: { worker, gateway, dispatcher },
      pids,
      statements: {},
      profiles: [],
    };
    const sessions = phones.map((_, i) => `s${i}`);
    const rows = [];
    rows.push(
      await measured(stack, 'inbound-first', () => inbound(stack, 'first', SESSIONS, 'inboundFirst')),
    );
    rows.push(
      await measured(stack, 'inbound-steady', () =>
        inbound(stack, 'steady', SESSIONS * PER_SESSION, 'inboundSteady'),
      ),
    );
    const once = sessions.map((sessionId) => ({ sessionId, to: CONTACT }));
    rows.push(await measured(stack, 'warm-up-reply', () => outbound(stack, 'warmup', once, 'outboundKnown')));
    const known = Array.from({ length: PER_SESSION }, () => once).flat();
    rows.push(
      await measured(stack, 'outbound-known', () => outbound(stack, 'known', known, 'outboundKnown')),
    );
    const strangers = sessions.map((sessionId, i) => ({ sessionId, to: strangerPhone(i) }));
    rows.push(await measured(stack, 'outbound-new', () => outbound(stack, 'new', strangers, 'outboundNew')));
    const { jid } = await emulator.ask('group', {
      creator: sessionPhone(0),
      members: Array.from({ length: GROUP_MEMBERS }, (_, i) => memberPhone(i)),
    });
    const toGroup = [{ sessionId: 's0', to: jid, recipients: GROUP_MEMBERS + 1 }];
    rows.push(
      await measured(stack, 'group-first', () => outbound(stack, 'groupfirst', toGroup, 'groupFirst', 1)),
    );
    rows.push(
      await measured(stack, 'group-again', () => outbound(stack, 'groupagain', toGroup, 'outboundKnown', 1)),
    );
    return {
      sessions: SESSIONS,
      linkS,
      rows,
      statements: stack.statements,
      profiles: stack.profiles,
      worker: { leaseDrops: worker.log.leaseDrops, errorLines: worker.log.errors },
      emulator: await emulator.ask('stats'),
    };
  } finally {
    for (const service of started.reverse()) await service.stop();
    await emulator.ask('stop').catch(() => undefined);
    await deployment.drop();
  }
}

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const machine = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1];
  console.log(`machine: ${machine}, load ${loadAverage()}, ${SESSIONS} sessions`);
  // The baseline first, alone: nothing else of the bench runs yet.
  const libsignal = await libsignalCosts({
    pairs: LIBSIGNAL_PAIRS,
    steady: PER_SESSION,
    groupMembers: GROUP_MEMBERS,
  });
  console.log(JSON.stringify({ libsignalUs: libsignal }));
  // Then bare Baileys on its own emulator, before any Jumbe process starts.
  const baileys = BAILEYS_BASELINE
    ? await baileysCosts({
        sessions: SESSIONS,
        perSession: PER_SESSION,
        parallel: PARALLEL,
        linkParallel: LINK_PARALLEL,
        idleS: IDLE_S,
        logDir: LOG_DIR,
        profileDir: PROFILE ? PROFILE_DIR : undefined,
      })
    : null;
  if (baileys) console.table(baileys.rows.map(({ profile, ...row }) => row));
  const adminToken = `bench_${randomBytes(16).toString('hex')}`;
  const result = await run(adminToken, libsignal, baileys);
  console.table(
    result.rows.map(({ phase, messages, delivered: done, duplicates, perSecond, p50Ms, p99Ms }) => ({
      phase,
      messages,
      delivered: done,
      duplicates,
      perSecond,
      p50Ms,
      p99Ms,
    })),
  );
  console.table(
    result.rows.map((row) => ({
      phase: row.phase,
      workerCpuMs: row.workerCpuMs,
      workerGrossCpuMs: row.workerGrossCpuMs,
      libsignalMs: row.libsignalMs,
      ratio: row.workerOverLibsignal,
      baileysMs: row.baileysMs,
      overBaileys: row.workerOverBaileys,
      baileysOverLibsignal: row.baileysOverLibsignal,
      workerPgQueries: row.workerPgQueries,
      workerPgWaitMs: row.workerPgWaitMs,
      workerPoolWaitMs: row.workerPoolWaitMs,
      gatewayPgQueries: row.gatewayPgQueries,
      dispatcherPgQueries: row.dispatcherPgQueries,
      pgTransactions: row.pgTransactions,
      gatewayCpuMs: row.gatewayCpuMs,
      dispatcherCpuMs: row.dispatcherCpuMs,
      emulatorCpuMs: row.emulatorCpuMs,
    })),
  );
  for (const [phase, statements] of Object.entries(result.statements)) {
    console.log(`\nworker statements per message, ${phase}`);
    console.table(statements);
  }
  if (process.env.BENCH_OUT)
    writeFileSync(
      process.env.BENCH_OUT,
      JSON.stringify({ at: new Date(), machine, libsignal, baileys, ...result }, null, 2),
    );
  const profiles = [...(baileys?.rows.map((row) => row.profile).filter(Boolean) ?? []), ...result.profiles];
  if (profiles.length > 0)
    execFileSync(process.execPath, [join(root, 'bench/profile-summary.mjs'), ...profiles], {
      stdio: 'inherit',
      env: { ...process.env, BENCH_TOP: process.env.BENCH_TOP ?? '15' },
    });
  console.log(
    'goals (issue 32): inbound >= 1,000 texts/s and >= 300 first messages/s; outbound >= 500/s to known contacts, >= 100/s to new ones; worker CPU <= 2x libsignal; 0 lost, 0 duplicated',
  );
}

main().catch((error) => {
  console.error(error);
  killAll();
  for (const child of emulators) child.kill('SIGKILL');
  process.exit(1);
});
