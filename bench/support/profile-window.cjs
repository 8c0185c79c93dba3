// Preloaded into the linking session worker by the emulator bench when `BENCH_LINK_PROFILE` is set:
// the first SIGWINCH starts a CPU profile and a sampling heap profile (allocations) through the
// inspector, the second writes both to `BENCH_PROFILE_DIR` (`link.cpuprofile`,
// `link.heapprofile`). The bench sends them when the link count passes the window it was given, so
// the profile covers, say, sessions 400 to 500 of a link of 1,000: what linking costs on a worker
// that already carries hundreds. SIGWINCH because Node ignores it by default and the other probes
// use SIGUSR2. Bench-only: nothing of it is in the product.
'use strict';

const { Session } = require('node:inspector');
const { writeFileSync, mkdirSync } = require('node:fs');
const { join } = require('node:path');

const DIR = process.env.BENCH_PROFILE_DIR ?? '/tmp/jumbe-bench-profile';
let session = null;

function post(method, params) {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

async function start() {
  session = new Session();
  session.connect();
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 1000 });
  await post('Profiler.start');
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 64 * 1024 });
  process.stderr.write(`${JSON.stringify({ profileWindow: 'started', at: new Date().toISOString() })}\n`);
}

async function stop() {
  const { profile } = await post('Profiler.stop');
  const { profile: heap } = await post('HeapProfiler.stopSampling');
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, 'link.cpuprofile'), JSON.stringify(profile));
  writeFileSync(join(DIR, 'link.heapprofile'), JSON.stringify(heap));
  session.disconnect();
  session = null;
  process.stderr.write(
    `${JSON.stringify({ profileWindow: 'written', dir: DIR, at: new Date().toISOString() })}\n`,
  );
}

process.on('SIGWINCH', () => {
  (session ? stop() : start()).catch((error) =>
    process.stderr.write(`${JSON.stringify({ profileWindow: 'failed', error: String(error) })}\n`),
  );
});
