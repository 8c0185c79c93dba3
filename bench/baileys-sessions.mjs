// The capacity bench's second baseline (issue 32): the pinned Baileys alone, in a process of its
// own, so its CPU per message is Baileys' floor and the rest of a worker's is Jumbe's. One bare
// `makeWASocket` per session with its auth state in memory (plain maps, no PostgreSQL, no NATS, no
// Jumbe code), on the same emulator as the worker and with the options a worker's socket differs
// by in ways that cost (no full history, not marked online, status broadcasts ignored); every
// other option is Baileys' default. One difference from Baileys as shipped, unless
// BENCH_BAILEYS_AS_IS=1: each socket's AsyncLocalStorage (Baileys makes one per socket and never
// disables it, so on Node 20 every promise of the process walks all of them: its cost grows with
// the number of sessions, Baileys issue #2806) is slotted into one, as the worker's driver does
// (libs/network's withSlottedAsyncStorage, loaded from dist/): a floor that grows with N is not a
// floor, and Jumbe does not pay it. Started by bench/baileys-baseline.mjs with fork() and the
// emulator's trust preload; driven over IPC with { id, op, args }, answering { id, result } or
// { id, error }. Bench-only: product code imports Baileys only in libs/network.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Browsers,
  DisconnectReason,
  initAuthCreds,
  isJidStatusBroadcast,
  makeWASocket,
  proto,
} from '@whiskeysockets/baileys';
import pino from 'pino';

const logger = pino({ level: 'silent' });
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const slotted =
  process.env.BENCH_BAILEYS_AS_IS === '1'
    ? (build) => build()
    : createRequire(import.meta.url)(
        join(root, 'dist/libs/network/src/whatsapp/with-slotted-async-storage.js'),
      ).withSlottedAsyncStorage;
const SKIPPED_HISTORY = new Set([
  proto.HistorySync.HistorySyncType.FULL,
  proto.HistorySync.HistorySyncType.ON_DEMAND,
]);

/** A session's credentials and Signal keys in memory: Baileys' SignalKeyStore over plain maps. */
function memoryAuth() {
  const creds = initAuthCreds();
  const byType = new Map();
  const keys = {
    get: async (type, ids) => {
      const stored = byType.get(type);
      const found = {};
      for (const id of ids) {
        const value = stored?.get(id);
        if (value !== undefined) found[id] = value;
      }
      return found;
    },
    set: async (data) => {
      for (const [type, values] of Object.entries(data)) {
        let stored = byType.get(type);
        if (!stored) byType.set(type, (stored = new Map()));
        for (const [id, value] of Object.entries(values ?? {})) {
          if (value === null || value === undefined) stored.delete(id);
          else stored.set(id, value);
        }
      }
    },
  };
  return { creds, keys };
}

/** Texts "<phase> <seq> <sent at>" each session received, by phase: count and the last arrival. */
const receivedByPhase = new Map();
/** Sessions by phone: { auth, socket, open }. */
const sessions = new Map();
let settings = null;

function noteInbound({ messages, type }) {
  if (type !== 'notify') return;
  for (const message of messages) {
    if (message.key.fromMe) continue;
    const text = message.message?.conversation ?? message.message?.extendedTextMessage?.text ?? '';
    const [phase, seq] = text.split(' ');
    if (!phase || seq === undefined) continue;
    let entry = receivedByPhase.get(phase);
    if (!entry) receivedByPhase.set(phase, (entry = { seen: new Set(), receipts: 0, lastAt: 0 }));
    entry.receipts += 1;
    entry.seen.add(`${message.key.remoteJid} ${message.key.id}`);
    entry.lastAt = Date.now();
  }
}

/** Opens (or, after the restart a pairing asks for, reopens) the socket of `phone`'s session. */
function connect(session) {
  const socket = slotted(() =>
    makeWASocket({
      auth: session.auth,
      logger,
      browser: Browsers.ubuntu('Chrome'),
      waWebSocketUrl: settings.url,
      version: settings.version,
      syncFullHistory: false,
      shouldSyncHistoryMessage: ({ syncType }) => !SKIPPED_HISTORY.has(syncType ?? -1),
      markOnlineOnConnect: false,
      emitOwnEvents: false,
      generateHighQualityLinkPreview: false,
      shouldIgnoreJid: (jid) => isJidStatusBroadcast(jid),
    }),
  );
  session.socket = socket;
  socket.ev.on('creds.update', (update) => Object.assign(session.auth.creds, update));
  socket.ev.on('messages.upsert', noteInbound);
  socket.ev.on('connection.update', ({ connection, qr, lastDisconnect }) => {
    if (qr && !session.qr) {
      session.qr = qr;
      session.onQr?.(qr);
    }
    if (connection === 'open') {
      session.open = true;
      session.onOpen?.();
    }
    if (connection === 'close') {
      session.open = false;
      const code = lastDisconnect?.error?.output?.statusCode;
      if (!session.closing && code !== DisconnectReason.loggedOut) setTimeout(() => connect(session), 100);
    }
  });
}

const operations = {
  /** Where the emulator listens and the WhatsApp Web version the worker pins. */
  configure: async ({ url, version }) => {
    settings = { url, version };
    return {};
  },
  /** Opens a fresh session for `phone`: its first QR (the bench has the emulated phone scan it). */
  open: async ({ phone }) => {
    const session = { auth: memoryAuth(), socket: null, open: false, qr: null };
    sessions.set(phone, session);
    const qr = new Promise((resolve) => (session.onQr = resolve));
    connect(session);
    return { qr: await qr };
  },
  /** Resolves once `phone`'s session is connected (after its scan and Baileys' restart). */
  opened: async ({ phone }) => {
    const session = sessions.get(phone);
    if (!session.open) await new Promise((resolve) => (session.onOpen = resolve));
    return {};
  },
  /** Texts `{ phone, to, text }` sent with sendMessage, `parallel` at a time; how many Baileys took. */
  send: async ({ jobs, parallel = 64 }) => {
    let next = 0;
    let sent = 0;
    const failures = [];
    await Promise.all(
      Array.from({ length: Math.min(parallel, jobs.length) }, async () => {
        while (next < jobs.length) {
          const { phone, to, text } = jobs[next++];
          try {
            await sessions.get(phone).socket.sendMessage(`${to}@s.whatsapp.net`, { text });
            sent += 1;
          } catch (error) {
            failures.push(String(error?.message ?? error));
          }
        }
      }),
    );
    return { sent, failures: failures.slice(0, 5), failed: failures.length };
  },
  /** What the sessions received of `phase` so far. */
  received: async ({ phase }) => {
    const entry = receivedByPhase.get(phase);
    return entry
      ? { unique: entry.seen.size, duplicates: entry.receipts - entry.seen.size, lastAt: entry.lastAt }
      : { unique: 0, duplicates: 0, lastAt: 0 };
  },
  profileStart: async () => {
    profiler = new Session();
    profiler.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 1000 });
    await post('Profiler.start');
    return {};
  },
  profileStop: async ({ file }) => {
    const { profile } = await post('Profiler.stop');
    profiler.disconnect();
    profiler = null;
    writeFileSync(file, JSON.stringify(profile));
    return { file };
  },
  stop: async () => {
    for (const session of sessions.values()) {
      session.closing = true;
      session.socket?.end(undefined);
    }
    setImmediate(() => process.exit(0));
    return {};
  },
};

let profiler = null;
const post = (method, params) =>
  new Promise((resolve, reject) =>
    profiler.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))),
  );

process.on('message', async ({ id, op, args }) => {
  try {
    process.send({ id, result: await operations[op](args ?? {}) });
  } catch (error) {
    process.send({ id, error: String(error?.stack ?? error) });
  }
});
process.on('disconnect', () => process.exit(0));
