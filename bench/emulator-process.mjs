// The WhatsApp emulator of `npm run bench emulator`, in a process of its own (its CPU and memory
// are not the worker's). Started with fork(): the bench drives it over IPC with { id, op, args }
// and gets { id, result } or { id, error } back. It plays every session's phone (linking by QR)
// and the contacts that write to them, and watches when each linked device logs in again.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { WhatsAppEmulator, EmulatedNetwork } = createRequire(import.meta.url)(
  join(root, 'dist/libs/whatsapp-emulator/src/index.js'),
);

const emulator = new WhatsAppEmulator();
const network = new EmulatedNetwork(emulator);
/** The device each phone linked, by phone number. */
const devices = new Map();
/** Since `mark`: the connection each device had then, and when it first had another one. */
let marked = null;
/**
 * What the phones received from linked devices, by phase: texts "<phase> <seq> <sent at>" (the
 * capacity bench's sends); distinct (recipient, seq) pairs, duplicates, when the last arrived.
 */
const receivedByPhase = new Map();
network.on('received', ({ recipient, message }) => {
  const text = message.conversation ?? message.extendedTextMessage?.text ?? '';
  const [phase, seq, sentAt] = text.split(' ');
  if (!phase || seq === undefined) return;
  let entry = receivedByPhase.get(phase);
  if (!entry)
    receivedByPhase.set(phase, (entry = { seen: new Set(), receipts: 0, lastAt: 0, latencies: [] }));
  entry.receipts += 1;
  entry.seen.add(`${recipient.phoneNumber ?? recipient.jid} ${seq}`);
  entry.lastAt = Date.now();
  if (Number(sentAt)) entry.latencies.push(Date.now() - Number(sentAt));
});

function watchLogins() {
  const poll = () => {
    if (!marked) return;
    const now = Date.now();
    for (const [phone, device] of devices) {
      if (marked.backAt.has(phone)) continue;
      const connection = network.connectionOf(device);
      if (connection && connection !== marked.before.get(phone)) marked.backAt.set(phone, now);
    }
  };
  setInterval(poll, 50).unref();
}

/** Sends `count` texts "<phase> <seq> <sent at>" round-robin over `phones`, from `contacts` contacts. */
async function send({ phase, phones, count, contacts = 1 }) {
  const senders = Array.from({ length: contacts }, (_, i) =>
    network.user(`25472${String(i).padStart(7, '0')}`, `Contact ${i}`),
  );
  const startedAt = Date.now();
  const sends = [];
  for (let seq = 0; seq < count; seq += 1) {
    const to = network.user(phones[seq % phones.length]);
    const from = senders[Math.floor(seq / phones.length) % senders.length];
    sends.push(network.sendMessage(from, to, { conversation: `${phase} ${seq} ${Date.now()}` }));
  }
  await Promise.all(sends);
  return { startedAt, injectedMs: Date.now() - startedAt };
}

const operations = {
  start: async () => ({ url: await emulator.start() }),
  /** The phone `phone` scans `qr` (from GET /session/qr). */
  scan: async ({ phone, qr }) => {
    const device = await network.scanQr(network.user(phone), qr);
    devices.set(phone, device);
    return { device: device.device };
  },
  online: async () => [...devices.values()].filter((device) => network.connectionOf(device)).length,
  /** From now on, notes when each linked device logs in on a new connection. */
  mark: async () => {
    const before = new Map([...devices].map(([phone, device]) => [phone, network.connectionOf(device)]));
    marked = { at: Date.now(), before, backAt: new Map() };
    return { at: marked.at };
  },
  /** How many devices logged in again since `mark`, and when the last did (epoch ms). */
  relogged: async () => ({
    count: marked?.backAt.size ?? 0,
    lastAt: Math.max(0, ...(marked?.backAt.values() ?? [])),
    times: [...(marked?.backAt.values() ?? [])],
  }),
  send,
  /** Makes sure the emulator knows these phones (contacts never written to still answer usync). */
  contacts: async ({ phones }) => {
    for (const phone of phones) network.user(phone);
    return { count: phones.length };
  },
  /** `creator` (a session's phone) makes a group with `members`; its JID. */
  group: async ({ creator, members, subject = 'bench' }) => ({
    jid: network.createGroup(
      subject,
      network.user(creator),
      members.map((phone) => network.user(phone)),
    ).jid,
  }),
  /** What the phones received of `phase` so far (see receivedByPhase). */
  received: async ({ phase }) => {
    const entry = receivedByPhase.get(phase);
    if (!entry) return { unique: 0, receipts: 0, duplicates: 0, lastAt: 0, p50Ms: null, p99Ms: null };
    const sorted = [...entry.latencies].sort((a, b) => a - b);
    const at = (p) =>
      sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
    return {
      unique: entry.seen.size,
      receipts: entry.receipts,
      duplicates: entry.receipts - entry.seen.size,
      lastAt: entry.lastAt,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
    };
  },
  stats: async () => ({
    devices: devices.size,
    connections: emulator.connections.size,
    failures: network.failures.length,
    refusedLogins: network.refusedLogins,
    rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
  }),
  stop: async () => {
    await emulator.stop();
    setImmediate(() => process.exit(0));
    return {};
  },
};

watchLogins();
process.on('message', async ({ id, op, args }) => {
  try {
    process.send({ id, result: await operations[op](args ?? {}) });
  } catch (error) {
    process.send({ id, error: String(error?.stack ?? error) });
  }
});
process.on('disconnect', () => process.exit(0));
