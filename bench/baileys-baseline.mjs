// The capacity bench's second baseline (issue 32): what the pinned Baileys alone spends per message,
// so a worker's CPU over libsignal's splits into Baileys' own floor and what Jumbe adds. N bare
// Baileys sockets with in-memory auth state (bench/baileys-sessions.mjs, a process of its own) on a
// fresh emulator (bench/emulator-process.mjs, another), linked by QR, then the capacity bench's
// phases with the same messages: contact 0's first (pre-key) text to every session, PER_SESSION
// steady texts each, one reply each to contact 0 (warm-up), PER_SESSION more to it, one text each to
// a contact never written to. No PostgreSQL, no NATS, no gateway, no webhooks: inbound ends at
// Baileys' `messages.upsert`, a send at `sendMessage`. CPU ms per message of the Baileys process,
// net of what it spends idle with every session linked (as the capacity bench does for the worker).
// Baileys' per-socket AsyncLocalStorage is slotted into one as the worker does, unless
// BENCH_BAILEYS_AS_IS=1 (see bench/baileys-sessions.mjs).
// Run alone: `node bench/baileys-baseline.mjs [sessions]` (after `node tools/build.mjs`).
import { fork } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cpuSeconds, loadAverage } from './support/cpu.mjs';
import { pause, root } from './support/services.mjs';

const TRUST = join(root, 'dist/libs/whatsapp-emulator/src/trust-preload.js');
/** A phase ends when everything arrived, or nothing more did for this long. */
const IDLE_MS = 30_000;
const sessionPhone = (i) => `25470${String(i).padStart(7, '0')}`;
const CONTACT = '254720000000'; // contact 0 of bench/emulator-process.mjs's `send`
const strangerPhone = (i) => `25473${String(i).padStart(7, '0')}`;
const round = (value, digits = 2) => Number(value.toFixed(digits));

/** A forked bench process driven over IPC: `ask(op, args)` resolves with its result. */
function ipcChild(script, execArgv, logFile) {
  const child = fork(join(root, script), [], {
    execArgv,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const log = createWriteStream(logFile);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const waiting = new Map();
  let nextId = 1;
  child.on('message', ({ id, result, error }) => {
    const waiter = waiting.get(id);
    waiting.delete(id);
    if (error) waiter?.reject(new Error(`${script}: ${error}`));
    else waiter?.resolve(result);
  });
  child.once('exit', (code) => {
    for (const waiter of waiting.values()) waiter.reject(new Error(`${script} exited (${code})`));
    waiting.clear();
  });
  const ask = (op, args) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      if (!child.connected) return reject(new Error(`${script} is gone`));
      waiting.set(id, { resolve, reject });
      child.send({ id, op, args });
    });
  return { child, ask };
}

/** Polls `count()` until it reaches `expected` or stops growing for IDLE_MS; the last answer. */
async function untilReceived(ask, expected) {
  let last = await ask();
  for (let progressAt = Date.now(); last.unique < expected && Date.now() - progressAt < IDLE_MS;) {
    await pause(250);
    const next = await ask();
    if (next.unique !== last.unique) progressAt = Date.now();
    last = next;
  }
  return last;
}

async function inParallel(items, parallel, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/**
 * Bare Baileys' CPU ms per message in each of the capacity bench's phases (named as there), for
 * `sessions` sessions; `profileDir` set: a CPU profile of the Baileys process per phase there.
 */
export async function baileysCosts({
  sessions = 100,
  perSession = 3,
  parallel = 64,
  linkParallel = 6,
  idleS = 10,
  version = [2, 3000, 1027934701],
  logDir = '/tmp/jumbe-bench-capacity',
  profileDir,
} = {}) {
  mkdirSync(logDir, { recursive: true });
  const emulator = ipcChild('bench/emulator-process.mjs', [], join(logDir, 'baileys-emulator.log'));
  const baileys = ipcChild('bench/baileys-sessions.mjs', ['--require', TRUST], join(logDir, 'baileys.log'));
  try {
    const { url } = await emulator.ask('start');
    await baileys.ask('configure', { url, version });
    const phones = Array.from({ length: sessions }, (_, i) => sessionPhone(i));
    const linkStarted = Date.now();
    await inParallel(phones, linkParallel, async (phone) => {
      const { qr } = await baileys.ask('open', { phone });
      await emulator.ask('scan', { phone, qr });
      await baileys.ask('opened', { phone });
    });
    const linkS = round((Date.now() - linkStarted) / 1000, 1);
    await emulator.ask('contacts', { phones: phones.map((_, i) => strangerPhone(i)) });
    await pause(5_000);
    const pid = baileys.child.pid;
    const idleFrom = cpuSeconds(pid);
    await pause(idleS * 1000);
    const idleCpuPerS = (cpuSeconds(pid) - idleFrom) / idleS;

    const rows = [];
    const measured = async (phase, messages, work) => {
      if (profileDir) await baileys.ask('profileStart');
      const load = loadAverage();
      const cpuBefore = cpuSeconds(pid);
      const emulatorBefore = cpuSeconds(emulator.child.pid);
      const startedAt = Date.now();
      const result = await work();
      const spanS = (Date.now() - startedAt) / 1000;
      const spent = cpuSeconds(pid) - cpuBefore;
      const row = {
        phase,
        messages,
        ...result,
        perSecond: Math.round(result.delivered / Math.max(0.001, (result.lastAt - startedAt) / 1000)),
        baileysCpuMs: round((Math.max(0, spent - idleCpuPerS * spanS) * 1000) / Math.max(1, messages)),
        baileysGrossCpuMs: round((spent * 1000) / Math.max(1, messages)),
        emulatorCpuMs: round(
          ((cpuSeconds(emulator.child.pid) - emulatorBefore) * 1000) / Math.max(1, messages),
        ),
        loadAvg: load,
      };
      delete row.lastAt;
      if (profileDir)
        row.profile = (
          await baileys.ask('profileStop', { file: join(profileDir, `baileys-${phase}.cpuprofile`) })
        ).file;
      console.log(JSON.stringify({ baileysBaseline: row }));
      rows.push(row);
    };
    const inbound = (phase, count) => async () => {
      await emulator.ask('send', { phase, phones, count, contacts: 1 });
      const got = await untilReceived(() => baileys.ask('received', { phase }), count);
      return { delivered: got.unique, duplicates: got.duplicates, lastAt: got.lastAt };
    };
    const outbound = (phase, jobs) => async () => {
      const sent = await baileys.ask('send', {
        parallel,
        jobs: jobs.map((job, seq) => ({ ...job, text: `${phase} ${seq} ${Date.now()}` })),
      });
      const got = await untilReceived(() => emulator.ask('received', { phase }), jobs.length);
      return {
        sends: sent.sent,
        failed: sent.failed,
        delivered: got.unique,
        duplicates: got.duplicates,
        lastAt: got.lastAt,
      };
    };
    await measured('inbound-first', sessions, inbound('bfirst', sessions));
    await measured('inbound-steady', sessions * perSession, inbound('bsteady', sessions * perSession));
    const once = phones.map((phone) => ({ phone, to: CONTACT }));
    await measured('warm-up-reply', sessions, outbound('bwarmup', once));
    const known = Array.from({ length: perSession }, () => once).flat();
    await measured('outbound-known', known.length, outbound('bknown', known));
    const strangers = phones.map((phone, i) => ({ phone, to: strangerPhone(i) }));
    await measured('outbound-new', sessions, outbound('bnew', strangers));
    return {
      sessions,
      // Baileys as shipped (its per-socket AsyncLocalStorage walked by every promise) or slotted.
      asyncStorage: process.env.BENCH_BAILEYS_AS_IS === '1' ? 'as shipped' : 'slotted',
      linkS,
      idleCpuMsPerS: Math.round(idleCpuPerS * 1000),
      rows,
      emulator: await emulator.ask('stats'),
    };
  } finally {
    await baileys.ask('stop').catch(() => undefined);
    await emulator.ask('stop').catch(() => undefined);
    baileys.child.kill('SIGKILL');
    emulator.child.kill('SIGKILL');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await baileysCosts({
    sessions: Number(process.argv[2] ?? 100),
    profileDir: process.env.BENCH_PROFILE_DIR,
  });
  console.log(JSON.stringify(result, null, 2));
}
