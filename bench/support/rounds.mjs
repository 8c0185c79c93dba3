import { cpuPerOperation, cpuSnapshot, loadAverage } from './cpu.mjs';
import { infrastructurePids } from './infrastructure-pids.mjs';
import { runLoad } from './load.mjs';

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);

/**
 * Loads each target in turn, `ROUNDS` times, the order rotated every round so no target always
 * runs first or last on a machine whose speed drifts. A target: { name, urls, key?, keys?, bodies?,
 * processes: { label: pid } } (the processes whose CPU counts for it). Redis and NATS CPU is
 * measured too but reported apart: other work on the machine uses them as well. CPU per request is
 * net of each process's idle CPU (measured once, before the rounds).
 * Resolves with { [name]: [round results] } and the load averages seen.
 */
export async function runRounds(
  targets,
  { rounds = ROUNDS, durationS = DURATION_S, log = console.log } = {},
) {
  const results = Object.fromEntries(targets.map((target) => [target.name, []]));
  const loads = [];
  const shared = infrastructurePids();
  // What each target burns with no load at all (timers, lease renewals, an embedded PostgreSQL's
  // background work): subtracted from each round, or a round that got little of the machine
  // would charge seconds of background CPU to a few requests.
  const idle = {};
  for (const target of targets) idle[target.name] = await idleMicrosPerSecond(target.processes);
  for (let round = 0; round < rounds; round += 1) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]);
    for (const target of order) {
      const before = cpuSnapshot(target.processes);
      const sharedBefore = cpuSnapshot(shared);
      const startedAt = Date.now();
      const load = await runLoad({ ...target, durationS });
      const seconds = (Date.now() - startedAt) / 1000;
      const cpu = cpuPerOperation(
        before,
        withoutIdle(cpuSnapshot(target.processes), idle[target.name], seconds),
        load.total,
      );
      const sharedCpu = cpuPerOperation(sharedBefore, cpuSnapshot(shared), load.total);
      loads.push(loadAverage());
      results[target.name].push({ ...load, cpu, sharedCpu });
      log(
        `round ${round + 1}/${rounds} ${target.name}: ${Math.round(load.requestsPerSecond)} req/s, ` +
          `p99 ${load.p99Ms} ms, ${load.non2xx} non-2xx, ${load.errors} errors, ` +
          `${cpu.total} µs CPU/request ${JSON.stringify(cpu.perProcess)}, load avg ${loads.at(-1)}`,
      );
    }
  }
  return { results, loads, idle };
}

const IDLE_SAMPLE_MS = 3_000;

/** CPU µs per second of each process of a target while nothing is sent to it. */
async function idleMicrosPerSecond(processes) {
  const before = cpuSnapshot(processes);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS));
  const after = cpuSnapshot(processes);
  return Object.fromEntries(
    Object.keys(before).map((name) => [name, (after[name] - before[name]) / (IDLE_SAMPLE_MS / 1000)]),
  );
}

/** A snapshot with `seconds` of each process's idle CPU taken off. */
function withoutIdle(snapshot, idlePerSecond, seconds) {
  return Object.fromEntries(
    Object.entries(snapshot).map(([name, micros]) => [name, micros - idlePerSecond[name] * seconds]),
  );
}

/** Warms a target up (JIT, caches, connection pools) with one short unmeasured round. */
export function warmUp(target, durationS = 3) {
  return runLoad({ ...target, durationS });
}
