// Preloaded into every process `startService` starts when BENCH_STALL_LOG=<dir> is set: each
// event-loop stall (a 5 ms timer firing 15 ms or more late) and each GC pause of 5 ms or more,
// with its wall-clock time, one JSON line per event in <dir>/<script>-<pid>.log (a worker thread,
// such as the session worker's lease upkeep, writes node-<pid>.log). Lined up with a step's
// wall-clock start (BENCH_INBOUND_TAIL prints it), it names the process behind a spike.
const { appendFileSync } = require('node:fs');
const { basename, dirname, join } = require('node:path');
const { PerformanceObserver, constants } = require('node:perf_hooks');

const dir = process.env.BENCH_STALL_LOG;
const script = process.argv[1] ?? 'node';
const name = basename(script) === 'main.js' ? basename(dirname(dirname(script))) : basename(script, '.mjs');
const file = join(dir, `${name}-${process.pid}.log`);
const INTERVAL_MS = 5;
const STALL_MS = 15;
const log = (entry) => appendFileSync(file, `${JSON.stringify({ at: Date.now(), ...entry })}\n`);

let due = performance.now() + INTERVAL_MS;
setInterval(() => {
  const now = performance.now();
  const lateMs = now - due;
  if (lateMs >= STALL_MS) log({ kind: 'stall', lateMs: Math.round(lateMs) });
  due = now + INTERVAL_MS;
}, INTERVAL_MS).unref();

const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.duration >= 5)
      log({
        kind: 'gc',
        gc: GC_KINDS[entry.detail?.kind] ?? entry.detail?.kind,
        ms: Math.round(entry.duration),
      });
  }
}).observe({ entryTypes: ['gc'] });
