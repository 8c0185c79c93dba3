// Preloaded into the session worker by the emulator bench when `BENCH_LOOP_PROBE=1`: watches the
// process's own event loop and garbage collector from inside, and writes one line to stderr for
// every stall of the loop longer than `BENCH_LOOP_STALL_MS` (default 1000):
// `{"loopStall":{ms,at,gcMs,gcKinds,cpuMs}}` — how long the loop did not turn, how much of that the
// collector took (by kind), and how much CPU the process used meanwhile (CPU ≪ ms means the machine
// did not schedule it; CPU ≈ ms with little GC means JavaScript ran that long). Bench-only: nothing
// of it is in the product.
'use strict';

const { PerformanceObserver, constants } = require('node:perf_hooks');

const STALL_MS = Number(process.env.BENCH_LOOP_STALL_MS ?? 1000);
const TICK_MS = 100;
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

let gcSince = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcSince.push({ at: entry.startTime, ms: entry.duration, kind: KINDS[entry.detail?.kind] ?? 'other' });
  }
}).observe({ entryTypes: ['gc'] });

let last = performance.now();
let lastCpu = process.cpuUsage();
setInterval(() => {
  const now = performance.now();
  const cpu = process.cpuUsage();
  const gap = now - last - TICK_MS;
  if (gap >= STALL_MS) {
    const inGap = gcSince.filter((gc) => gc.at >= last - 1);
    const gcKinds = {};
    for (const gc of inGap) gcKinds[gc.kind] = Math.round((gcKinds[gc.kind] ?? 0) + gc.ms);
    process.stderr.write(
      `${JSON.stringify({
        loopStall: {
          ms: Math.round(gap),
          at: new Date().toISOString(),
          gcMs: Math.round(inGap.reduce((sum, gc) => sum + gc.ms, 0)),
          gcKinds,
          cpuMs: Math.round((cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000),
          heapUsedMiB: Math.round(process.memoryUsage().heapUsed / 1048576),
        },
      })}\n`,
    );
  }
  gcSince = gcSince.filter((gc) => gc.at >= now - 1);
  last = now;
  lastCpu = cpu;
}, TICK_MS).unref();
