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
