// `npm run bench emulator`: real Baileys sessions (JUMBE_NETWORK=whatsapp) linked to one session
// worker against the WhatsApp emulator (issue 11), each size in a fresh deployment:
//   1. link N sessions by QR through the HTTP API (the emulator's phones read each QR from
//      GET /session/qr and answer it), then resident memory per quiet connected session;
//   2. SIGKILL the worker, start a new one at once: time until every device logged in to the
//      emulator again, lease-guard drops in the new worker's log (issue 17), its memory once quiet;
//   3. inbound: the emulator's contacts write to every session; deliveries per second at a
//      verifying webhook receiver, through the one worker and one webhook dispatcher.
// Processes: emulator (bench/emulator-process.mjs), gateway, worker, dispatcher, receiver, each
// its own. Settings: BENCH_EMULATOR_SESSIONS (sizes, default "1000"), BENCH_LINK_PARALLEL (6),
// BENCH_CONNECT_SPACING_MS (the restoring worker's JUMBE_CONNECT_SPACING_MS, default 25),
// JUMBE_RESTORE_CONCURRENCY (default the product's), BENCH_QUIET_S (20), BENCH_INBOUND_PER_SESSION
// (3), BENCH_CPU_PROF_DIR (CPU profile of the restoring worker). Not part of the test command.
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuSeconds, loadAverage } from './support/cpu.mjs';
import { call, createAccount, createDeployment, createKey, ok } from './support/deployment.mjs';
import { delivered } from './support/receiver.mjs';
import { killAll, pause, root, startService } from './support/services.mjs';
import pg from 'pg';

const SIZES = (process.env.BENCH_EMULATOR_SESSIONS ?? '1000').split(',').map(Number);
const LINK_PARALLEL = Number(process.env.BENCH_LINK_PARALLEL ?? 6);
const RESTORE_SPACING_MS = process.env.BENCH_CONNECT_SPACING_MS ?? '25';
const QUIET_MS = Number(process.env.BENCH_QUIET_S ?? 20) * 1000;
const INBOUND_PER_SESSION = Number(process.env.BENCH_INBOUND_PER_SESSION ?? 3);
const RESTORE_TIMEOUT_MS = 600_000;
/** The size after which the "first sessions" memory point is taken (the slope excludes Baileys' load). */
const FIRST = 10;
const PRELOAD = join(root, 'dist/libs/whatsapp-emulator/src/trust-preload.js');
const PROBE = join(root, 'bench/support/memory-probe.cjs');
const LOOP_PROBE = join(root, 'bench/support/loop-probe.cjs');
const PROFILE_WINDOW = join(root, 'bench/support/profile-window.cjs');
/** `from,to`: profile the linking worker (CPU and allocations) while links from..to complete. */
const LINK_PROFILE = process.env.BENCH_LINK_PROFILE?.split(',').map(Number);
const MiB = 2 ** 20;
/** Every process's log is kept here, one file per process and size (BENCH_LOG_DIR). */
const LOG_DIR = process.env.BENCH_LOG_DIR ?? '/tmp/jumbe-bench-emulator';
mkdirSync(LOG_DIR, { recursive: true });
/** The emulator processes still running (the services are support/services.mjs's). */
const emulators = new Set();

// ── Processes ──

/**
 * Starts a Node program and resolves once it logs the URL it listens on, its log kept in LOG_DIR.
 * Counts the lease-guard lines of its log; `probe()` asks the memory probe (SIGUSR2) for memory
 * after a forced GC. Not profiled unless `profile` names the file.
 */
async function startProcess(script, env, label, nodeOptions = [], profile = false) {
  const log = { leaseDrops: 0, leasesLost: 0, allShardsAt: 0, errors: 0 };
  let probeWaiter = null;
  const service = await startService(script, env, label, {
    quiet: true,
    nodeOptions,
    profile,
    logDir: LOG_DIR,
    onLine: (line) => {
      if (line.includes('could not be renewed in time')) log.leaseDrops += 1;
      if (line.includes('shard lease lost')) log.leasesLost += 1;
      if (/"level":(50|60)/.test(line)) log.errors += 1;
      if (line.includes('"shardsHeld":64') && !log.allShardsAt) log.allShardsAt = Date.now();
      if (line.startsWith('{"memoryProbe":')) probeWaiter?.(JSON.parse(line).memoryProbe);
    },
  });
  const probe = () =>
    new Promise((done) => {
      probeWaiter = (memory) => {
        probeWaiter = null;
        done(memory);
      };
      service.child.kill('SIGUSR2');
    });
  return { ...service, log, probe };
}

/** The emulator in its own process, driven over IPC. */
function startEmulator() {
  const child = fork(join(root, 'bench/emulator-process.mjs'), [], { stdio: 'inherit' });
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

function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

/** RSS (from /proc) and heap used after a forced GC (from the memory probe), in bytes. */
async function memoryOf(worker) {
  const probed = await worker.probe();
  return {
    rss: rssBytes(worker.child.pid),
    heapUsed: probed.heapUsed,
    heapTotal: probed.heapTotal,
    external: probed.external,
  };
}

const mib = (bytes) => Number((bytes / MiB).toFixed(1));
const perSession = (after, before, count) => Number(((after - before) / MiB / count).toFixed(3));
const seconds = (ms) => Number((ms / 1000).toFixed(1));

async function inParallel(items, parallel, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index], index);
      }
    }),
  );
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

// ── Phases ──

const phoneOf = (index) => `25470${String(index).padStart(7, '0')}`;

/** Retries `attempt` (up to 20 times, 2 s apart) while it throws: a busy worker may answer a start with 504. */
async function withRetries(attempt, what) {
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= 20) throw new Error(`${what}: ${error.message}`);
      retries += 1;
      await pause(2_000);
    }
  }
}
let retries = 0;
/** Called with the number of sessions linked so far, after each link (progress, profile window). */
let onLinked = () => undefined;
let linkedCount = 0;

/** Links sessions by QR through the API: start, read the QR, the emulated phone scans, wait for connected. */
async function link(gateway, key, emulator, indexes) {
  const headers = { 'x-api-key': key };
  const get = (path) => call(`${gateway}/api/v1/${path}`, 'GET', undefined, headers);
  await inParallel(indexes, LINK_PARALLEL, async (index) => {
    const sessionId = `s${index}`;
    await withRetries(async () => {
      const status = await get(`session/status?sessionId=${sessionId}`);
      if (status.body?.data?.state === 'connected') return;
      await ok(`${gateway}/api/v1/session/start`, 'POST', { sessionId }, headers);
      const qr = await until(
        async () => {
          const shown = await get(`session/qr?sessionId=${sessionId}`);
          return shown.body?.data?.state === 'qr_ready' && shown.body.data.qr;
        },
        60_000,
        `QR of ${sessionId}`,
      );
      await emulator.ask('scan', { phone: phoneOf(index), qr });
      await until(
        async () => (await get(`session/status?sessionId=${sessionId}`)).body?.data?.state === 'connected',
        120_000,
        `${sessionId} connected`,
      );
    }, `linking ${sessionId}`);
    linkedCount += 1;
    onLinked(linkedCount);
  });
}

/** Sessions of the account by state (GET /sessions, from PostgreSQL). */
async function statesOf(gateway, key) {
  const listed = await ok(`${gateway}/api/v1/sessions`, 'GET', undefined, { 'x-api-key': key });
  const states = {};
  for (const session of listed.data) states[session.state] = (states[session.state] ?? 0) + 1;
  return states;
}

/** Transactions committed or rolled back in the deployment's database so far (its statistics). */
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

/** The emulator's contacts write `count` texts round-robin over the sessions; what the receiver saw. */
async function inbound(emulator, receiver, processes, databaseUrl, phase, phones, count, contacts) {
  const transactionsBefore = await transactions(databaseUrl);
  const cpuBefore = Object.fromEntries(
    Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)]),
  );
  const load = loadAverage();
  const { startedAt, injectedMs } = await emulator.ask('send', { phase, phones, count, contacts });
  // Until every message arrived, or none did for 30 s.
  const stats = await delivered(receiver, phase, count, { idleMs: 30_000, pollMs: 250 });
  const cpu = Object.fromEntries(
    Object.entries(processes).map(([name, pid]) => [
      `${name}CpuMsPerMsg`,
      Number((((cpuSeconds(pid) - cpuBefore[name]) * 1000) / Math.max(1, stats.unique)).toFixed(2)),
    ]),
  );
  const spanMs = stats.lastAt - startedAt;
  // pg_stat_database is updated by each backend at the end of a transaction batch, shortly after.
  await pause(1_000);
  const transactionsPerMsg =
    ((await transactions(databaseUrl)) - transactionsBefore) / Math.max(1, stats.unique);
  return {
    phase,
    messages: count,
    delivered: stats.unique,
    duplicates: stats.duplicates,
    badSignatures: stats.badSignatures,
    emulatorInjectedS: seconds(injectedMs),
    lastDeliveryS: seconds(spanMs),
    deliveriesPerS: Math.round(stats.unique / (spanMs / 1000)),
    p50FromBurstStartMs: stats.p50Ms,
    ...cpu,
    databaseTransactionsPerMsg: Number(transactionsPerMsg.toFixed(1)),
    loadAvg: load,
  };
}

// ── One size ──

async function scenario(size, adminToken) {
  const deployment = await createDeployment(adminToken);
  const emulator = startEmulator();
  const started = [];
  const results = { sessions: size };
  try {
    const { url } = await emulator.ask('start');
    const env = {
      ...deployment.env,
      JUMBE_NETWORK: 'whatsapp',
      JUMBE_WHATSAPP_URL: url,
      JUMBE_WHATSAPP_VERSION: '2.3000.1027934701',
      JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    const workerArgs = ['--expose-gc', '--require', PRELOAD, '--require', PROBE];
    if (process.env.BENCH_LOOP_PROBE === '1') workerArgs.push('--require', LOOP_PROBE);
    if (LINK_PROFILE) workerArgs.push('--require', PROFILE_WINDOW);
    const receiver = await startProcess('bench/inbound-receiver.mjs', {}, 'receiver');
    const gateway = await startProcess('dist/apps/gateway/src/main.js', env, 'gateway');
    const dispatcher = await startProcess('dist/apps/webhook-dispatcher/src/main.js', env, 'dispatcher');
    const linker = await startProcess(
      'dist/apps/session-worker/src/main.js',
      { ...env, JUMBE_CONNECT_SPACING_MS: '0' },
      'worker-1',
      workerArgs,
    );
    started.push(receiver, gateway, dispatcher, linker);
    await until(async () => linker.log.allShardsAt, 60_000, 'worker-1 holds every shard');

    const accountId = await createAccount(gateway.url, adminToken, { maxSessions: size });
    const key = await createKey(gateway.url, adminToken, accountId);
    const saved = await ok(
      `${gateway.url}/api/v1/webhook`,
      'PATCH',
      { url: `${receiver.url}/hook`, enabled: true },
      { 'x-api-key': key },
    );
    await fetch(`${receiver.url}/control/secret`, { method: 'POST', body: saved.secret });

    // 1. Link, and memory per quiet session.
    const empty = await memoryOf(linker);
    const indexes = Array.from({ length: size }, (_, i) => i);
    const linkStarted = Date.now();
    linkedCount = 0;
    onLinked = (count) => {
      if (LINK_PROFILE && (count === LINK_PROFILE[0] || count === LINK_PROFILE[1]))
        linker.child.kill('SIGWINCH');
      if (count % 50 === 0) {
        const progress = {
          linked: count,
          atS: seconds(Date.now() - linkStarted),
          workerRssMiB: mib(rssBytes(linker.child.pid)),
          workerCpuS: cpuSeconds(linker.child.pid),
          loadAvg: loadAverage(),
          leaseGuardDrops: linker.log.leaseDrops,
        };
        console.log(JSON.stringify({ linkProgress: progress }));
      }
    };
    await link(gateway.url, key, emulator, indexes.slice(0, FIRST));
    await pause(QUIET_MS / 2);
    const first = await memoryOf(linker);
    await link(gateway.url, key, emulator, indexes.slice(FIRST));
    const linkMs = Date.now() - linkStarted;
    results.linkS = seconds(linkMs);
    results.linkRetries = retries;
    results.linkerLeaseGuardDrops = linker.log.leaseDrops;
    results.linkerLeasesLost = linker.log.leasesLost;
    results.linkLoadAvg = loadAverage();
    await pause(QUIET_MS);
    const linked = await memoryOf(linker);
    Object.assign(results, {
      emptyRssMiB: mib(empty.rss),
      firstRssMiB: mib(first.rss),
      linkedRssMiB: mib(linked.rss),
      emptyHeapMiB: mib(empty.heapUsed),
      firstHeapMiB: mib(first.heapUsed),
      linkedHeapMiB: mib(linked.heapUsed),
      linkedHeapTotalMiB: mib(linked.heapTotal),
      rssMiBPerSession: perSession(linked.rss, first.rss, size - FIRST),
      rssMiBPerSessionFromEmpty: perSession(linked.rss, empty.rss, size),
      heapMiBPerSession: perSession(linked.heapUsed, first.heapUsed, size - FIRST),
      externalMiBPerSession: perSession(linked.external, first.external, size - FIRST),
      memoryLoadAvg: loadAverage(),
      online: await emulator.ask('online'),
    });
    console.log(JSON.stringify(results));

    // 2. SIGKILL, a new worker at once; every device logged in again.
    const statesBeforeKill = await statesOf(gateway.url, key);
    const expected = await emulator.ask('online');
    await emulator.ask('mark');
    const emulatorCpuBefore = cpuSeconds(emulator.child.pid);
    const transactionsBefore = await transactions(env.JUMBE_DATABASE_URL);
    const killedAt = Date.now();
    linker.child.kill('SIGKILL');
    const restorer = await startProcess(
      'dist/apps/session-worker/src/main.js',
      { ...env, JUMBE_CONNECT_SPACING_MS: RESTORE_SPACING_MS },
      'worker-2',
      workerArgs,
      // BENCH_CPU_PROF_DIR=<dir>: a CPU profile of the restoring worker (written when it stops).
      `worker-2-${size}.cpuprofile`,
    );
    started.push(restorer);
    const upMs = Date.now() - killedAt;
    const restoreLoad = loadAverage();
    // Every device that was online at the kill; a wait that makes no progress for 90 s ends it.
    let relogged = { count: 0, times: [], lastAt: 0 };
    for (let progressAt = Date.now(); relogged.count < expected; await pause(200)) {
      const seen = await emulator.ask('relogged');
      if (seen.count > relogged.count) progressAt = Date.now();
      relogged = seen;
      if (Date.now() - progressAt > 90_000 || Date.now() - killedAt > RESTORE_TIMEOUT_MS) break;
    }
    const sorted = relogged.times.map((time) => time - killedAt).sort((a, b) => a - b);
    const restoreCpuS = cpuSeconds(restorer.child.pid);
    const restoreEmulatorCpuS = Number((cpuSeconds(emulator.child.pid) - emulatorCpuBefore).toFixed(2));
    const restoreTransactions = (await transactions(env.JUMBE_DATABASE_URL)) - transactionsBefore;
    Object.assign(results, {
      statesBeforeKill: JSON.stringify(statesBeforeKill),
      onlineAtKill: expected,
      loggedInAgain: relogged.count,
      restoreSpacingMs: Number(RESTORE_SPACING_MS),
      restoreConcurrency: Number(process.env.JUMBE_RESTORE_CONCURRENCY ?? 32),
      newWorkerUpS: seconds(upMs),
      leasesHeldS: seconds(restorer.log.allShardsAt - killedAt),
      firstLoginS: seconds(sorted[0]),
      p50LoginS: seconds(sorted[Math.floor(sorted.length / 2)]),
      allLoggedInS: seconds(relogged.lastAt - killedAt),
      restoreCpuS,
      restoreEmulatorCpuS,
      restoreTransactionsPerSession: Number((restoreTransactions / size).toFixed(1)),
      restoreLoadAvg: restoreLoad,
      statesAfterRestore: JSON.stringify(await statesOf(gateway.url, key)),
    });
    await pause(QUIET_MS);
    const restored = await memoryOf(restorer);
    // V8 keeps the heap it grew to during the restore for a while: a second look, later.
    await pause(Number(process.env.BENCH_SETTLE_S ?? 45) * 1000);
    const settled = await memoryOf(restorer);
    Object.assign(results, {
      restoredRssMiB: mib(restored.rss),
      restoredHeapMiB: mib(restored.heapUsed),
      restoredHeapTotalMiB: mib(restored.heapTotal),
      restoredExternalMiB: mib(restored.external),
      settledRssMiB: mib(settled.rss),
      settledHeapTotalMiB: mib(settled.heapTotal),
      leaseGuardDrops: restorer.log.leaseDrops,
      leasesLost: restorer.log.leasesLost,
      workerErrorLines: restorer.log.errors,
    });
    console.log(JSON.stringify(results));

    // 3. Inbound through the one worker and the dispatcher to the receiver.
    const phones = indexes.map(phoneOf);
    const processes = {
      worker: restorer.child.pid,
      dispatcher: dispatcher.child.pid,
      emulator: emulator.child.pid,
    };
    // Each session's first message from a contact is a Signal pre-key message (a new session).
    const databaseUrl = env.JUMBE_DATABASE_URL;
    results.inboundFirst = await inbound(
      emulator,
      receiver.url,
      processes,
      databaseUrl,
      'first',
      phones,
      size,
      1,
    );
    results.inbound = await inbound(
      emulator,
      receiver.url,
      processes,
      databaseUrl,
      'steady',
      phones,
      size * INBOUND_PER_SESSION,
      1,
    );
    results.emulator = await emulator.ask('stats');
    results.restorerLeaseGuardDropsAtEnd = restorer.log.leaseDrops;
    return results;
  } finally {
    for (const service of started.reverse()) await service.stop();
    await emulator.ask('stop').catch(() => undefined);
    await deployment.drop();
  }
}

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs')], { stdio: 'inherit' });
  const adminToken = `bench_${randomBytes(16).toString('hex')}`;
  console.log(
    `machine: ${readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1]}, load ${loadAverage()}`,
  );
  for (const size of SIZES) {
    const result = await scenario(size, adminToken);
    console.log(JSON.stringify(result, null, 2));
  }
}

main().catch((error) => {
  console.error(error);
  killAll();
  for (const child of emulators) child.kill('SIGKILL');
  process.exit(1);
});
