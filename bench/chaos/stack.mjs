// The distributed topology of a chaos run: gateway, two session workers (real Baileys, pointed at
// the WhatsApp emulator through one TCP proxy each), the webhook dispatcher; PostgreSQL, NATS and
// Redis each reached through a TCP proxy (libs/testing's TcpProxy) that the faults cut. Processes
// are started with bench/support/services.mjs from a snapshot of dist/, so a build another
// process runs meanwhile cannot swap a restarted worker's code halfway through a run.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { NATS, POSTGRES, REDIS } from '../support/deployment.mjs';
import { pause, root, startService } from '../support/services.mjs';

/** Builds if stale, then copies dist/ (and what it resolves from the root) to `dir`. */
export function snapshotBuild(dir) {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  mkdirSync(dir, { recursive: true });
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { dir, require: createRequire(join(dir, 'package.json')) };
}

/** Waits until `probe()` is truthy (polling); throws after `timeoutMs`. */
export async function until(probe, timeoutMs, what, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await pause(everyMs);
  }
}

/**
 * Starts the proxies and processes. `build` is the snapshot's directory and require; `env` the
 * deployment's (direct URLs); `emulatorUrl` the emulator's WebSocket address. Returns the stack:
 * `{ env, proxies, services, kill(name, signal), restart(name), stop() }`.
 */
export async function startStack({ build, env, emulatorUrl, logDir, onLine }) {
  const { TcpProxy } = build.require('./dist/libs/testing/src/index.js');
  const proxies = {
    postgres: await TcpProxy.inFrontOf(POSTGRES),
    nats: await TcpProxy.inFrontOf(NATS),
    redis: await TcpProxy.inFrontOf(REDIS),
  };
  const emulator = new URL(emulatorUrl);
  proxies.whatsapp = [];
  for (let i = 0; i < 2; i += 1)
    proxies.whatsapp.push(await TcpProxy.start({ host: emulator.hostname, port: Number(emulator.port) }));
  const serviceEnv = {
    ...env,
    JUMBE_DATABASE_URL: proxies.postgres.rewrite(env.JUMBE_DATABASE_URL),
    JUMBE_NATS_URL: proxies.nats.rewrite(env.JUMBE_NATS_URL),
    JUMBE_REDIS_URL: proxies.redis.rewrite(env.JUMBE_REDIS_URL),
    JUMBE_NETWORK: 'whatsapp',
    JUMBE_WHATSAPP_VERSION: '2.3000.1027934701',
    JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
    JUMBE_LOG_LEVEL: 'info',
  };
  const preload = join(build.dir, 'dist/libs/whatsapp-emulator/src/trust-preload.js');
  const programs = {
    gateway: { script: 'dist/apps/gateway/src/main.js', env: serviceEnv },
    // Debug: the order a message took is read from its id's lines (ids and keys, never content).
    dispatcher: {
      script: 'dist/apps/webhook-dispatcher/src/main.js',
      env: { ...serviceEnv, JUMBE_LOG_LEVEL: 'debug' },
    },
  };
  for (let i = 0; i < 2; i += 1) {
    programs[`worker-${i}`] = {
      script: 'dist/apps/session-worker/src/main.js',
      env: {
        ...serviceEnv,
        JUMBE_WHATSAPP_URL: proxies.whatsapp[i].rewrite(emulatorUrl),
        JUMBE_LOG_LEVEL: 'debug',
      },
      nodeOptions: ['--require', preload],
      worker: true,
    };
  }
  const services = {};
  const incarnations = {};

  async function start(name) {
    const program = programs[name];
    incarnations[name] = (incarnations[name] ?? 0) + 1;
    const label = `${name}.${incarnations[name]}`;
    let shardsAt = 0;
    const service = await startService(program.script, program.env, label, {
      cwd: build.dir,
      quiet: true,
      logDir,
      nodeOptions: program.nodeOptions ?? [],
      onLine: (line) => {
        if (program.worker && !shardsAt && /"shardsHeld":[1-9]/.test(line)) shardsAt = Date.now();
        onLine?.(name, line);
      },
    });
    services[name] = { ...service, label, startedAt: Date.now(), shards: () => shardsAt };
    return services[name];
  }

  /**
   * Sends `signal` and waits for the exit (SIGTERM: a graceful shutdown, up to `graceMs`, then
   * SIGKILL). Returns `{ exitCode, signal, hung }`.
   */
  async function kill(name, signal, graceMs = 45_000) {
    const service = services[name];
    service.child.kill(signal);
    const code = await Promise.race([service.exited, pause(graceMs).then(() => 'hung')]);
    if (code !== 'hung') return { exitCode: code, signal: service.child.signalCode, hung: false };
    service.child.kill('SIGKILL');
    await service.exited;
    return { exitCode: null, signal: 'SIGKILL', hung: true };
  }

  await start('gateway');
  await start('dispatcher');
  for (const name of ['worker-0', 'worker-1']) {
    await start(name);
    // Each worker announces how many shards it holds once it took its first ones.
    await until(async () => services[name].shards(), 120_000, `${name} holds shards`).catch(() => undefined);
  }

  return {
    env: serviceEnv,
    proxies,
    services,
    gatewayUrl: () => services.gateway.url,
    kill,
    restart: start,
    async stop() {
      for (const name of Object.keys(services).reverse()) await services[name].stop();
      for (const proxy of [proxies.postgres, proxies.nats, proxies.redis, ...proxies.whatsapp])
        await proxy.close();
    },
  };
}
