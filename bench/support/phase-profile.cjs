// Preloaded into the session worker by the capacity bench with `--profile`: each SIGWINCH starts or
// stops a CPU profile through the inspector (1 ms sampling); each stop writes
// `<BENCH_PROFILE_DIR>/phase-<n>.cpuprofile` and the line `{"profileWindow":"written","file":…}` to
// stderr, so the bench can name it after the phase it covered. (bench/support/profile-window.cjs
// is the emulator bench's single window, with a heap profile.) Bench-only: nothing of it is in the
// product.
'use strict';

const { Session } = require('node:inspector');
const { writeFileSync, mkdirSync } = require('node:fs');
const { join } = require('node:path');

const DIR = process.env.BENCH_PROFILE_DIR ?? '/tmp/jumbe-bench-capacity';
let session = null;
let written = 0;

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
}

async function stop() {
  const { profile } = await post('Profiler.stop');
  session.disconnect();
  session = null;
  mkdirSync(DIR, { recursive: true });
  written += 1;
  const file = join(DIR, `phase-${process.pid}-${written}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  process.stderr.write(`${JSON.stringify({ profileWindow: 'written', file })}\n`);
}

process.on('SIGWINCH', () => {
  (session ? stop() : start()).catch((error) =>
    process.stderr.write(`${JSON.stringify({ profileWindow: 'failed', error: String(error) })}\n`),
  );
});
