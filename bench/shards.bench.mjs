// `npm run bench shards`: shard ownership past one machine, by simulation. Many ShardKeepers (the
// code workers and dispatchers run, default timings) in a few processes against a real Redis:
// 1,024 shards over 50 workers must spread within ±1; SIGKILLing a process that holds 5 of them
// must leave every shard held again, spread within ±1 over the 45 left, in < 10 s; and the fleet's
// Redis load is read from INFO commandstats before and after a steady minute's share. The Redis is
// a private redis-server on a free port (same binary as the shared one), so no other client's
// commands mix into its statistics; BENCH_REDIS_URL uses an existing one instead.
// Sizes: BENCH_SHARDS (1024), BENCH_WORKERS (50), BENCH_KILL (5), BENCH_PER_PROCESS (9),
// BENCH_STEADY_S (20). Not part of the test command.
import { execFileSync, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Redis from 'ioredis';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHARDS = Number(process.env.BENCH_SHARDS ?? 1024);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 50);
const KILL = Number(process.env.BENCH_KILL ?? 5);
const PER_PROCESS = Number(process.env.BENCH_PER_PROCESS ?? 9);
const STEADY_S = Number(process.env.BENCH_STEADY_S ?? 20);
const RECOVERY_GOAL_MS = 10_000;
const keyPrefix = `bench-shards-${randomBytes(4).toString('hex')}:`;

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A private redis-server (no persistence), or the one BENCH_REDIS_URL names. */
async function startRedis() {
  if (process.env.BENCH_REDIS_URL) return { url: process.env.BENCH_REDIS_URL, stop: async () => undefined };
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => 100, maxRetriesPerRequest: 0 });
  probe.on('error', () => undefined); // refused until the server listens
  for (let tries = 0; ; tries += 1) {
    try {
      if (probe.status !== 'ready') await probe.connect();
      await probe.ping();
      break;
    } catch (error) {
      if (tries > 50) throw error;
      await delay(100);
    }
  }
  probe.disconnect();
  return {
    url,
    stop: async () => {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    },
  };
}

/** The fleet's processes: `WORKERS - KILL` keepers in groups of PER_PROCESS, and the KILL victims in one. */
function layout() {
  const groups = [];
  for (let left = WORKERS - KILL; left > 0; left -= PER_PROCESS) groups.push(Math.min(PER_PROCESS, left));
  return { survivors: groups, victims: KILL };
}

class Fleet {
  constructor() {
    this.processes = new Map(); // name → { child, report }
  }

  start(name, keepers, redisUrl) {
    const child = fork(join(root, 'bench', 'shards-fleet.mjs'), [], {
      env: {
        PATH: process.env.PATH,
        BENCH_FLEET_REDIS_URL: redisUrl,
        BENCH_FLEET_KEY_PREFIX: keyPrefix,
        BENCH_FLEET_SHARDS: String(SHARDS),
        BENCH_FLEET_KEEPERS: String(keepers),
        BENCH_FLEET_NAME: name,
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const entry = { child, report: null, alive: true };
    child.on('message', (message) => {
      if (message?.type === 'report') entry.report = message;
    });
    child.once('exit', () => (entry.alive = false));
    this.processes.set(name, entry);
  }

  live() {
    return [...this.processes.values()].filter((entry) => entry.alive);
  }

  /** Each live keeper's shards, as its process last reported them. */
  holdings() {
    return this.live().flatMap((entry) => entry.report?.keepers ?? []);
  }

  /** Every shard held exactly once by a live keeper, and sizes within one of each other. */
  settled(expectedWorkers) {
    const keepers = this.holdings();
    if (keepers.length !== expectedWorkers) return { allHeld: false, even: false };
    const seen = new Set();
    let total = 0;
    for (const { held } of keepers) {
      total += held.length;
      for (const shard of held) seen.add(shard);
    }
    const sizes = keepers.map(({ held }) => held.length);
    const allHeld = seen.size === SHARDS && total === SHARDS;
    return { allHeld, even: allHeld && Math.max(...sizes) - Math.min(...sizes) <= 1, sizes };
  }

  async waitFor(condition, timeoutMs, what) {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await delay(50);
    }
  }

  kill(name) {
    this.processes.get(name).child.kill('SIGKILL');
  }

  cpuMicros() {
    return this.live().reduce(
      (sum, { report }) => sum + (report ? report.cpu.user + report.cpu.system : 0),
      0,
    );
  }

  async stop() {
    await Promise.all(
      this.live().map(
        ({ child }) =>
          new Promise((resolve) => {
            child.once('exit', resolve);
            child.send({ type: 'stop' });
            setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
          }),
      ),
    );
  }
}

/** INFO commandstats as { command: calls }, and the server's CPU seconds. */
async function redisStats(redis) {
  const calls = {};
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (match) calls[match[1]] = Number(match[2]);
  }
  const cpu = await redis.info('cpu');
  const seconds = (key) => Number(new RegExp(`${key}:([\\d.]+)`).exec(cpu)?.[1] ?? 0);
  return { calls, cpuSeconds: seconds('used_cpu_sys') + seconds('used_cpu_user') };
}

function perSecond(before, after, seconds) {
  const rates = {};
  for (const [command, calls] of Object.entries(after.calls)) {
    const delta = calls - (before.calls[command] ?? 0);
    if (delta > 0) rates[command] = Math.round(delta / seconds);
  }
  return rates;
}

/** Who holds every lease in Redis (one pipeline), as shards per worker. */
async function leaseHolders(redis) {
  const pipeline = redis.pipeline();
  for (let shard = 0; shard < SHARDS; shard += 1)
    pipeline.hget(`${keyPrefix}shard:{${shard}}:lease`, 'worker');
  const replies = await pipeline.exec();
  const perWorker = new Map();
  let free = 0;
  for (const [, worker] of replies) {
    if (worker === null) free += 1;
    else perWorker.set(worker, (perWorker.get(worker) ?? 0) + 1);
  }
  return { free, sizes: [...perWorker.values()] };
}

const spread = (sizes) => `${Math.min(...sizes)}..${Math.max(...sizes)}`;

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs')], { stdio: 'inherit' });
  const redisServer = await startRedis();
  const redis = new Redis(redisServer.url);
  const fleet = new Fleet();
  const { survivors, victims } = layout();
  const results = { shards: SHARDS, workers: WORKERS, processes: survivors.length + 1, killed: KILL };
  try {
    const started = Date.now();
    survivors.forEach((keepers, i) => fleet.start(`p${i + 1}`, keepers, redisServer.url));
    fleet.start('victims', victims, redisServer.url);
    await fleet.waitFor(() => fleet.settled(WORKERS).even, 120_000, 'the first even spread');
    results.firstSpreadMs = Date.now() - started;
    const spreadFirst = fleet.settled(WORKERS).sizes;
    const inRedis = await leaseHolders(redis);
    results.spread = {
      reported: spread(spreadFirst),
      inRedis: spread(inRedis.sizes),
      freeInRedis: inRedis.free,
    };
    console.log(
      `spread: ${SHARDS} shards over ${WORKERS} workers, ${results.spread.reported} each (Redis: ${results.spread.inRedis}, ${inRedis.free} free), after ${results.firstSpreadMs} ms`,
    );

    // Steady state: nothing joins or leaves; what does keeping the shards cost?
    await delay(3_000);
    const before = await redisStats(redis);
    const cpuBefore = fleet.cpuMicros();
    const sentBefore = totalSent(fleet);
    const windowStart = Date.now();
    await delay(STEADY_S * 1_000);
    const seconds = (Date.now() - windowStart) / 1_000;
    const after = await redisStats(redis);
    const rates = perSecond(before, after, seconds);
    const clientRate = Math.round((totalSent(fleet) - sentBefore) / seconds);
    results.steady = {
      seconds: Math.round(seconds),
      commandstatsPerSecond: rates,
      serverCallsPerSecond: Object.values(rates).reduce((a, b) => a + b, 0),
      clientCommandsPerSecond: clientRate,
      redisCpuPercent: Math.round(((after.cpuSeconds - before.cpuSeconds) / seconds) * 1000) / 10,
      fleetCpuMsPerSecond: Math.round((fleet.cpuMicros() - cpuBefore) / 1_000 / seconds),
      stillEven: fleet.settled(WORKERS).even,
    };
    console.log(
      `steady (${results.steady.seconds} s): ${clientRate} commands/s sent by the fleet; INFO commandstats ${JSON.stringify(rates)}; Redis CPU ${results.steady.redisCpuPercent}%; keepers' CPU ${results.steady.fleetCpuMsPerSecond} ms/s`,
    );

    // Five workers die at once (SIGKILL: no release, no leaving the registry).
    const killedAt = Date.now();
    fleet.kill('victims');
    await fleet.waitFor(() => fleet.settled(WORKERS - KILL).allHeld, 60_000, 'every shard held again');
    results.allHeldAgainMs = Date.now() - killedAt;
    await fleet.waitFor(() => fleet.settled(WORKERS - KILL).even, 60_000, 'an even spread again');
    results.recoveredMs = Date.now() - killedAt;
    const afterKill = await leaseHolders(redis);
    results.afterKill = {
      reported: spread(fleet.settled(WORKERS - KILL).sizes),
      inRedis: spread(afterKill.sizes),
      freeInRedis: afterKill.free,
    };
    results.recoveryGoalMet = results.recoveredMs < RECOVERY_GOAL_MS;
    console.log(
      `kill ${KILL}: every shard held again after ${results.allHeldAgainMs} ms, spread ${results.afterKill.reported} over ${WORKERS - KILL} after ${results.recoveredMs} ms (goal < ${RECOVERY_GOAL_MS} ms: ${results.recoveryGoalMet ? 'met' : 'MISSED'})`,
    );
  } finally {
    await fleet.stop();
    redis.disconnect();
    await redisServer.stop();
  }
  results.loadAverage = loadavg().map((load) => Math.round(load * 10) / 10);
  console.log(JSON.stringify(results, null, 2));
}

function totalSent(fleet) {
  return [...fleet.processes.values()].reduce(
    (sum, { report }) => sum + Object.values(report?.sent ?? {}).reduce((a, b) => a + b, 0),
    0,
  );
}

await main();
