'use strict';
// The lease upkeep thread (ThreadedLeaseUpkeep starts it with node:worker_threads). Plain
// CommonJS, so the same file runs from src/ under Jest and from dist/ (tools/build.mjs copies it
// beside the compiled JavaScript). Everything it needs comes in workerData from the TypeScript
// side: the Redis connection options, the Lua scripts and every shard's lease key, so neither the
// scripts nor the key layout are written down twice.
//
// It renews every lease the main thread says it holds, in one pipelined round trip, with the
// member's registry heartbeat in the same pipeline, on a schedule of its own: a thread that mostly
// sleeps is scheduled promptly even when the process's busy main thread is starved of CPU. It
// stops renewing when the main thread has not stamped its liveness for `stallLimitMs`: a wedged
// process must not hold its shards forever.
//
// Shared memory (BigInt64Array over SharedArrayBuffer, indexed by shard; Atomics throughout):
//   tokens[shard]     the token the main thread holds the shard under; 0 = not held
//   renewedAt[shard]  when the last successful acquire/renewal was sent (ms since the epoch)
//   lost[shard]       the token of a lease a renewal found no longer held (the main thread drops it)
//   control[0]        when the main thread last stamped its liveness (ms since the epoch)
const { parentPort, workerData } = require('node:worker_threads');
const Redis = require('ioredis');

const {
  redisUrl,
  redisOptions,
  maxReconnectDelayMs,
  memberId,
  leaseTtlMs,
  renewEveryMs,
  stallLimitMs,
  renewScript,
  leaseKeys,
  heartbeat,
  memory,
} = workerData;

const tokens = new BigInt64Array(memory.tokens);
const renewedAt = new BigInt64Array(memory.renewedAt);
const lost = new BigInt64Array(memory.lost);
const control = new BigInt64Array(memory.control);
const MAIN_ALIVE_AT = 0;

const report = (message) => parentPort.postMessage(message);

let timer = null;
let cycle = null;
let stopping = false;
let paused = false;

// The backoff of createRedisClient's redisReconnectDelay (a function cannot cross threads).
const client = new Redis(redisUrl, {
  ...redisOptions,
  retryStrategy: (attempt) => Math.min(100 * 2 ** Math.max(0, attempt - 1), maxReconnectDelayMs),
});
client.defineCommand('jumbeShardLeaseRenew', { numberOfKeys: 1, lua: renewScript });
if (heartbeat) client.defineCommand('jumbeWorkerHeartbeat', { numberOfKeys: 1, lua: heartbeat.script });

// One line per distinct failure and one when the connection is back, as the process's own client.
let lastError;
client.on('error', (error) => {
  if (error.message === lastError) return;
  lastError = error.message;
  report({ kind: 'warn', message: `redis lease upkeep: ${error.message}` });
});
client.on('ready', () => {
  report({ kind: 'ready' });
  // Back after an outage: renew at once rather than at the next tick.
  if (!cycle && !stopping && timer) {
    clearTimeout(timer);
    run();
  }
  if (lastError === undefined) return;
  lastError = undefined;
  report({ kind: 'warn', message: 'redis lease upkeep: connection ready again' });
});

// A main-thread silence longer than this would have cost the shards had they been renewed there
// (the keeper's guard drops a shard about three quarters of a lease after its last renewal).
const noteStallsFromMs = Math.round((leaseTtlMs * 3) / 4);
let longestSilentMs = 0;

// While Redis is away every cycle fails the same way: one line per distinct failure, not one a cycle.
let lastFailure;
function failed(message, error) {
  const line = `${message}: ${error}`;
  if (line === lastFailure) return;
  lastFailure = line;
  report({ kind: 'warn', message, error });
}

function schedule(delayMs) {
  if (!stopping) timer = setTimeout(run, Math.max(0, delayMs));
}

function run() {
  const startedAt = Date.now();
  cycle = renew()
    .then(() => {
      lastFailure = undefined;
    })
    .catch((error) => failed('shard lease renewal failed; retrying', error.message))
    .finally(() => {
      cycle = null;
      schedule(renewEveryMs - (Date.now() - startedAt));
    });
}

async function renew() {
  const now = Date.now();
  const silentMs = now - Number(Atomics.load(control, MAIN_ALIVE_AT));
  // One report per stall, when it ends: operators see why commands timed out meanwhile.
  if (silentMs >= noteStallsFromMs) longestSilentMs = Math.max(longestSilentMs, silentMs);
  else if (longestSilentMs > 0) {
    // Past the stall limit the leases were let go instead ('paused', then 'resumed').
    if (longestSilentMs <= stallLimitMs) report({ kind: 'stalled', silentMs: longestSilentMs });
    longestSilentMs = 0;
  }
  if (silentMs > stallLimitMs) {
    // The main thread is wedged (or gone): let the leases expire, so other members take the shards.
    if (!paused) report({ kind: 'paused', silentMs });
    paused = true;
    return;
  }
  if (paused) report({ kind: 'resumed' });
  paused = false;
  // Not connected (yet, or Redis is away): nothing could be sent; the client reports why.
  if (client.status !== 'ready') return;

  const held = [];
  for (let shard = 0; shard < tokens.length; shard += 1) {
    const token = Atomics.load(tokens, shard);
    if (token !== 0n) held.push({ shard, token });
  }
  if (held.length === 0 && !heartbeat) return;

  const pipeline = client.pipeline();
  if (heartbeat) pipeline.jumbeWorkerHeartbeat(heartbeat.registryKey, memberId, String(heartbeat.ttlMs));
  for (const { shard, token } of held) {
    pipeline.jumbeShardLeaseRenew(leaseKeys[shard], memberId, token.toString(), String(leaseTtlMs));
  }
  // Redis counts the TTL from when it runs the script, a little after this.
  const sentAt = BigInt(Date.now());
  const replies = await pipeline.exec();
  if (!replies) throw new Error('Connection is closed');

  const offset = heartbeat ? 1 : 0;
  let firstError = heartbeat ? replies[0][0] : null;
  held.forEach(({ shard, token }, i) => {
    const [error, renewed] = replies[i + offset];
    if (error) {
      // Unknown: the guard drops the shard if this goes on.
      firstError = firstError || error;
      return;
    }
    if (renewed === 1) {
      // Only for the same grant, and never backwards.
      if (Atomics.load(tokens, shard) !== token) return;
      let previous = Atomics.load(renewedAt, shard);
      while (previous < sentAt) {
        const seen = Atomics.compareExchange(renewedAt, shard, previous, sentAt);
        if (seen === previous) break;
        previous = seen;
      }
    } else if (Atomics.compareExchange(tokens, shard, token, 0n) === token) {
      // Lost (expired, or another member holds it): stop renewing it, and tell the main thread.
      Atomics.store(lost, shard, token);
    }
  });
  if (firstError) throw firstError;
}

parentPort.on('message', (message) => {
  if (message.kind !== 'stop' || stopping) return;
  stopping = true;
  if (timer) clearTimeout(timer);
  // The renewal in flight first, so that nothing of this member reaches Redis after stop resolves.
  Promise.resolve(cycle)
    .then(() => client.quit())
    .catch(() => client.disconnect())
    .finally(() => process.exit(0));
});

schedule(0);
