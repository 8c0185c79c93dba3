// The webhook receiver of `npm run bench inbound`, in its own process: verifies the signature of
// every delivery (as a customer's receiver must), answers 200, and keeps per phase what arrived
// and when. Each delivery's message text is "<phase> <seq> <injected at, epoch ms>", so the bench
// can tell losses, duplicates and injection-to-receipt latency. Control routes under /control.
import { createServer } from 'node:http';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { verifyDelivery } = createRequire(import.meta.url)(
  join(root, 'dist/libs/webhook-receiver/src/index.js'),
);

const now = () => performance.timeOrigin + performance.now();
let secret = null;
let holding = false;
const held = [];
/**
 * phase → { seen: Map<seq, count>, latencies: number[], injectedAt: number[], firstAt, lastAt,
 * receipts, maxSeq, outOfOrder }: a first receipt of a seq lower than one already seen is out of
 * order (meaningful where the phase was injected in order, into one session).
 */
const phases = new Map();
let badSignatures = 0;

function phase(name) {
  let entry = phases.get(name);
  if (!entry) {
    entry = {
      seen: new Map(),
      latencies: [],
      injectedAt: [],
      firstAt: 0,
      lastAt: 0,
      receipts: 0,
      maxSeq: -1,
      outOfOrder: 0,
    };
    phases.set(name, entry);
  }
  return entry;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return Number(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))].toFixed(1));
}

/**
 * Where the tail sits in time: per 500 ms of injection (from the phase's first injection), the
 * worst latency and how many took over 50 ms. A tail made of one stall shows as one slice; a tail
 * spread over the step, as many.
 */
function tailBySlice(entry) {
  if (entry.injectedAt.length === 0) return [];
  const first = entry.injectedAt.reduce((min, at) => Math.min(min, at), Infinity);
  const slices = [];
  entry.injectedAt.forEach((at, i) => {
    const index = Math.floor((at - first) / 500);
    const slice = (slices[index] ??= { fromMs: index * 500, worstMs: 0, over50: 0 });
    slice.worstMs = Math.max(slice.worstMs, Math.round(entry.latencies[i]));
    if (entry.latencies[i] > 50) slice.over50 += 1;
  });
  return slices.filter(Boolean);
}

function stats(name) {
  const entry = phase(name);
  const sorted = Float64Array.from(entry.latencies).sort();
  return {
    receipts: entry.receipts,
    unique: entry.seen.size,
    duplicates: entry.receipts - entry.seen.size,
    firstAt: entry.firstAt,
    lastAt: entry.lastAt,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    tail: tailBySlice(entry),
    outOfOrder: entry.outOfOrder,
    badSignatures,
  };
}

function receive(raw, headers) {
  const receivedAt = now();
  let verified;
  try {
    verified = verifyDelivery({ body: raw, headers, secret });
  } catch {
    badSignatures += 1;
    return;
  }
  const [name, seq, injectedAt] = String(verified.payload.message?.text ?? '').split(' ');
  const entry = phase(name);
  entry.receipts += 1;
  if (!entry.seen.has(seq)) {
    if (Number(seq) < entry.maxSeq) entry.outOfOrder += 1;
    else entry.maxSeq = Number(seq);
  }
  entry.seen.set(seq, (entry.seen.get(seq) ?? 0) + 1);
  entry.latencies.push(receivedAt - Number(injectedAt));
  entry.injectedAt.push(Number(injectedAt));
  if (entry.firstAt === 0) entry.firstAt = receivedAt;
  entry.lastAt = receivedAt;
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const raw = Buffer.concat(chunks);
    const url = new URL(request.url, 'http://receiver');
    if (url.pathname === '/control/secret') {
      secret = raw.toString('utf8');
      return response.end('{}');
    }
    if (url.pathname === '/control/hold') {
      holding = url.searchParams.get('on') === '1';
      if (!holding) for (const waiting of held.splice(0)) waiting.end('ok');
      return response.end('{}');
    }
    if (url.pathname === '/control/stats') {
      return response.end(JSON.stringify(stats(url.searchParams.get('phase'))));
    }
    receive(raw, request.headers);
    if (holding) held.push(response);
    else response.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'receiver listening', url: `http://127.0.0.1:${port}` })}\n`);
});
