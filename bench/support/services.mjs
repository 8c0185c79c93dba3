import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const running = new Set();

/** Lines of a service's output kept for the error when it exits before it listens. */
const TAIL_LINES = 20;

/**
 * The V8 flags a Jumbe service is launched with in production (deploy/docker-entrypoint.sh and the
 * `start` scripts of package.json; deploy/test/launch-flags.spec.ts keeps them in step): the bench
 * starts them the same way, or it would measure a process nobody runs. A larger young generation
 * for the HTTP-serving processes (see the entrypoint for why). BENCH_V8_DEFAULTS=1 starts every
 * service with V8's defaults instead (to measure the flags themselves).
 */
export const SERVICE_NODE_FLAGS = {
  gateway: ['--max-semi-space-size=64'],
  'all-in-one': ['--max-semi-space-size=64'],
};

/** The production flags of `script` when it is a Jumbe service's entry point, else none. */
function serviceFlags(script, v8Defaults) {
  if (v8Defaults || process.env.BENCH_V8_DEFAULTS === '1') return [];
  const service = /(?:^|\/)dist\/apps\/([\w-]+)\/src\/main\.js$/.exec(script)?.[1];
  return SERVICE_NODE_FLAGS[service] ?? [];
}

/**
 * Starts a Node program (a path under `cwd`, the repository by default) and resolves once it logs the URL it
 * listens on: { url, pid, child, exited, stop }. BENCH_CPU_PROF_DIR=<dir> starts it under --cpu-prof; the
 * profile (`<label>.cpuprofile`, or the file name `profile` gives) is written when it stops (SIGTERM, then
 * it exits on its own); `profile: false` keeps it out of the profiling. A Jumbe service gets the flags it
 * runs with in production (SERVICE_NODE_FLAGS); `nodeOptions` go after them (a flag given twice: the
 * later wins) and before the script; `v8Defaults: true` leaves the service flags out. `onLine(line, pid)`
 * sees every line it writes; `logDir` keeps them all in `<logDir>/<label>.log`; `quiet` keeps its error
 * lines off the console. `exited` resolves with its exit code.
 */
export function startService(
  script,
  env,
  label,
  {
    quiet = false,
    cwd = root,
    nodeOptions = [],
    onLine,
    profile: profiled = true,
    v8Defaults = false,
    logDir,
  } = {},
) {
  const profile =
    profiled && process.env.BENCH_CPU_PROF_DIR
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`,
          `--cpu-prof-name=${typeof profiled === 'string' ? profiled : `${label}.cpuprofile`}`,
        ]
      : [];
  const stallLog = process.env.BENCH_STALL_LOG
    ? ['--require', join(root, 'bench', 'support', 'stall-log.cjs')]
    : [];
  const flags = [...serviceFlags(script, v8Defaults), ...stallLog, ...nodeOptions];
  const child = spawn(process.execPath, [...profile, ...flags, resolve(cwd, script)], {
    cwd,
    env: {
      PATH: process.env.PATH,
      JUMBE_HOST: '127.0.0.1',
      JUMBE_PORT: '0',
      JUMBE_LOG_LEVEL: 'info',
      ...(process.env.BENCH_STALL_LOG ? { BENCH_STALL_LOG: process.env.BENCH_STALL_LOG } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  void exited.then(() => running.delete(child));
  const file = logDir ? createWriteStream(join(logDir, `${label}.log`)) : null;
  if (file) void exited.then(() => file.end());
  const tail = [];
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start`)), 120_000);
    let announced = false;
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        file?.write(`${line}\n`);
        onLine?.(line, child.pid);
        if (announced && !quiet && /"level":(50|60)/.test(line)) console.error(`[${label}] ${line}`);
        if (announced) return;
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        const match = /"url":"(http:\/\/[^"]+)".*listening|listening.*"url":"(http:\/\/[^"]+)"/.exec(line);
        if (match) {
          announced = true;
          clearTimeout(timer);
          resolve({ url: match[1] ?? match[2], pid: child.pid, child, exited, stop });
        }
      });
    }
    void exited.then((code) => reject(new Error(`${label} exited with ${code}: ${tail.join('\n')}`)));
  });
}

/** Stops every service still running (SIGTERM, so profiles get written). */
export async function stopAll() {
  await Promise.all(
    [...running].map(async (child) => {
      child.kill('SIGTERM');
      await Promise.race([
        new Promise((r) => child.once('exit', r)),
        new Promise((r) => setTimeout(r, 15_000)),
      ]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }),
  );
}

export function killAll() {
  for (const child of running) child.kill('SIGKILL');
}

export const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
