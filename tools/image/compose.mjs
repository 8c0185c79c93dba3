// `docker compose up`, then `docker compose down`, for docker-compose.yml's Jumbe services, with
// podman: what Compose users get, checked.
//   node tools/image/compose.mjs [IMAGE]        (default jumbe:ci; tools/image/ci.sh runs it)
// Compose's own semantics, from the file as users have it: each Jumbe service (its replicas too)
// starts only when its depends_on conditions hold (service_healthy: the service's health check
// passes; service_completed_successfully: it exited 0), with the file's read_only, tmpfs, cap_drop,
// security_opt, command, environment and healthcheck (test, interval, timeout, retries,
// start_period); the all-in-one profile too. `down` stops each with its stop_grace_period (SIGTERM
// first) and expects exit 0. podman-compose 1.0 (Debian's) ignores depends_on conditions and
// wraps CMD health checks in a shell, so this does what Compose does instead.
// Where CI differs from a user's machine, on purpose: no registry answers here, so the postgres,
// redis and nats services are this machine's servers (a throwaway database, a deployment name of
// its own) instead of their images, judged healthy as their health checks would (a query, PING,
// JetStream answering); the Jumbe services' URLs point there (10.0.2.2 is the host's loopback in
// each container's network). Published ports get a free host port (8080 may be taken here).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  check,
  checkConfinement,
  checkGracefulStop,
  checkSendAndReceive,
  fromContainer,
  log,
  logsOf,
  NATS_URL,
  PG_URL,
  REDIS_URL,
  removeDeploymentState,
  startReceiver,
} from './checks.mjs';
import { NETWORK, podman, podmanAsync, publishedPort, sleep } from './podman.mjs';

const require = createRequire(import.meta.url);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const IMAGE = process.argv[2] ?? 'jumbe:ci';
const RUN_ID = randomBytes(3).toString('hex');
const PROJECT = `jumbe-ci-compose-${RUN_ID}`;
/** The servers standing in for the file's dependency services. */
const EXTERNAL = new Set(['postgres', 'redis', 'nats']);

const containers = [];
const cleanups = [];

/** `${VAR}`, `${VAR:-default}` and `${VAR:?message}`, as Compose interpolates them. */
function interpolate(value, env) {
  if (typeof value === 'string') {
    return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name, kind, rest) => {
      const set = env[name] !== undefined && env[name] !== '';
      if (kind === '?' && !set) throw new Error(`compose: ${rest}`);
      return set ? env[name] : kind === '-' ? rest : '';
    });
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, env)]));
  }
  return value;
}

function loadCompose(env) {
  const { parse } = require('yaml');
  const file = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
  return interpolate(file, env);
}

const seconds = (duration) => {
  const match = /^(\d+)(ms|s|m)?$/.exec(String(duration ?? ''));
  if (!match) return undefined;
  const n = Number(match[1]);
  return match[2] === 'ms' ? n / 1000 : match[2] === 'm' ? n * 60 : n;
};

/**
 * The service keys this script applies. Another key in the file fails the run rather than being
 * ignored silently; `build` (the image is built first) and `restart` (nothing here crashes on
 * purpose) are accepted without being exercised.
 */
const APPLIED = new Set([
  ...['image', 'build', 'restart', 'read_only', 'tmpfs', 'volumes', 'cap_drop', 'security_opt'],
  ...[
    'environment',
    'ports',
    'healthcheck',
    'command',
    'depends_on',
    'deploy',
    'stop_grace_period',
    'profiles',
  ],
]);

/** The `podman run` flags for a Compose service definition. */
function runFlags(name, service, overrides) {
  const unknown = Object.keys(service).filter((key) => !APPLIED.has(key));
  if (unknown.length > 0)
    throw new Error(`compose: ${name} uses ${unknown.join(', ')}, which compose.mjs does not apply`);
  const flags = ['--name', name, '--network', NETWORK, '--label', `com.docker.compose.project=${PROJECT}`];
  if (service.read_only) flags.push('--read-only');
  for (const path of service.tmpfs ?? []) flags.push('--tmpfs', path);
  for (const volume of service.volumes ?? []) {
    const [source, target] = volume.split(':');
    flags.push('-v', `${PROJECT}_${source}:${target}`);
  }
  for (const capability of service.cap_drop ?? []) flags.push('--cap-drop', capability);
  for (const option of service.security_opt ?? []) flags.push('--security-opt', option.replace(':true', ''));
  for (const [key, value] of Object.entries({ ...(service.environment ?? {}), ...overrides })) {
    flags.push('-e', `${key}=${value}`);
  }
  for (const port of service.ports ?? []) flags.push('-p', `127.0.0.1::${String(port).split(':').pop()}`);
  const health = service.healthcheck ?? {};
  if (health.disable) flags.push('--no-healthcheck');
  else if (health.test) {
    // Exec form for ["CMD", ...], as Compose hands it to the engine: podman takes a JSON array of
    // the command alone as exec form (with the "CMD" in it, it would split the JSON on spaces).
    const [kind, ...command] = health.test;
    flags.push('--health-cmd', kind === 'CMD' ? JSON.stringify(command) : command.join(' '));
    if (health.interval) flags.push('--health-interval', health.interval);
    if (health.timeout) flags.push('--health-timeout', health.timeout);
    if (health.retries) flags.push('--health-retries', String(health.retries));
    if (health.start_period) flags.push('--health-start-period', health.start_period);
  }
  return flags;
}

/**
 * Health as the engine judges it: during `start_period` a failing check does not count (checked
 * every second here, as Docker's start_interval would, so a quick start is seen quickly); after
 * it the check runs every `interval`, and `retries` failures in a row make the service unhealthy.
 */
async function waitServiceHealthy(name, health) {
  const interval = seconds(health.interval) ?? 30;
  const startPeriod = seconds(health.start_period) ?? 0;
  const retries = health.retries ?? 3;
  const started = Date.now();
  let failures = 0;
  for (;;) {
    const result = await podmanAsync(['healthcheck', 'run', name]);
    const elapsed = (Date.now() - started) / 1000;
    if (result.status === 0) return elapsed;
    const inStartPeriod = elapsed < startPeriod;
    if (!inStartPeriod) failures += 1;
    if (failures >= retries) throw new Error(`compose: ${name} unhealthy:\n${logsOf(name)}`);
    await sleep((inStartPeriod ? 1 : interval) * 1000);
  }
}

async function waitExited(name, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = podman(['inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', name]).stdout;
    const [status, code] = state.split(' ');
    if (status === 'exited') return Number(code);
    if (Date.now() > deadline) throw new Error(`compose: ${name} still ${status}`);
    await sleep(300);
  }
}

/** The machine's servers, healthy the way the file's health checks would find the dependency services. */
async function externalHealthy(service, databaseUrl) {
  if (service === 'postgres') {
    const { Client } = require('pg');
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('SELECT 1');
    await client.end();
  } else if (service === 'redis') {
    const Redis = require('ioredis');
    const redis = new Redis(REDIS_URL, { lazyConnect: true });
    await redis.connect();
    check((await redis.ping()) === 'PONG', 'redis: PING answers PONG');
    redis.disconnect();
  } else {
    const { connect } = require('nats');
    const nats = await connect({ servers: NATS_URL.replace(/^nats:\/\//, '') });
    await (await nats.jetstreamManager()).getAccountInfo();
    await nats.close();
  }
}

async function up(file, profiles, overrides, databaseUrl) {
  const active = Object.entries(file.services).filter(
    ([, service]) => !service.profiles || service.profiles.some((profile) => profiles.includes(profile)),
  );
  const state = new Map(); // service -> 'healthy' | 'completed' | 'started'
  const started = {};
  const pending = new Map(active);
  while (pending.size > 0) {
    const ready = [...pending].filter(([, service]) =>
      Object.keys(service.depends_on ?? {}).every((dependency) => state.has(dependency)),
    );
    if (ready.length === 0)
      throw new Error(`compose: depends_on cycle among ${[...pending.keys()].join(', ')}`);
    await Promise.all(
      ready.map(async ([name, service]) => {
        pending.delete(name);
        for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
          const reached = state.get(dependency);
          if (condition === 'service_healthy' && reached !== 'healthy')
            throw new Error(`compose: ${name} waits for ${dependency} healthy, it is ${reached}`);
          if (condition === 'service_completed_successfully' && reached !== 'completed')
            throw new Error(`compose: ${name} waits for ${dependency} to complete, it is ${reached}`);
        }
        if (EXTERNAL.has(name)) {
          await externalHealthy(name, databaseUrl);
          log(`ok  ${name}: the machine's server healthy (stands in for ${service.image})`);
          state.set(name, 'healthy');
          return;
        }
        const replicas = service.deploy?.replicas ?? 1;
        const names = Array.from({ length: replicas }, (_, i) => `${PROJECT}-${name}-${i + 1}`);
        for (const container of names) {
          podman([
            'run',
            '-d',
            ...runFlags(container, service, name === 'all-in-one' ? {} : overrides),
            IMAGE,
            ...(service.command ?? []),
          ]);
          containers.push(container);
        }
        started[name] = { service, containers: names };
        if (service.restart === 'no' || name === 'migrate') {
          for (const container of names) {
            const code = await waitExited(container);
            check(code === 0, `${container}: ${service.command.join(' ')} completed, exit ${code}`);
          }
          state.set(name, 'completed');
          return;
        }
        for (const container of names) {
          const took = await waitServiceHealthy(container, service.healthcheck ?? {});
          log(`ok  ${container}: healthy by the file's health check after ${took.toFixed(0)} s`);
        }
        state.set(name, 'healthy');
      }),
    );
  }
  return started;
}

async function main() {
  const receiver = await startReceiver(cleanups);
  const adminToken = `admin_${randomBytes(16).toString('hex')}`;
  // What the user puts in .env (README "Container image and Compose").
  const env = {
    ...process.env,
    JUMBE_SECRET_KEY: randomBytes(32).toString('hex'),
    JUMBE_ADMIN_TOKEN: adminToken,
  };
  const file = loadCompose(env);
  podman(['tag', IMAGE, file.services.gateway.image]);

  const { Client } = require('pg');
  const database = `jumbe_compose_${RUN_ID}`;
  const admin = new Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const deployment = `compose-${RUN_ID}`;
  cleanups.push(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await removeDeploymentState(deployment);
  });
  const databaseUrl = new URL(PG_URL);
  databaseUrl.pathname = `/${database}`;
  const overrides = {
    JUMBE_DATABASE_URL: fromContainer(databaseUrl.toString()),
    JUMBE_REDIS_URL: fromContainer(REDIS_URL),
    JUMBE_NATS_URL: fromContainer(NATS_URL),
    JUMBE_DEPLOYMENT: deployment,
    // The sandbox and a receiver on this machine, for the send and the inbound message below.
    JUMBE_NETWORK: 'sandbox',
    JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const volumes = Object.keys(file.volumes ?? {}).map((volume) => `${PROJECT}_${volume}`);
  cleanups.push(() =>
    volumes.forEach((volume) => podman(['volume', 'rm', '-f', volume], { allowFailure: true })),
  );

  try {
    log('--- docker compose --profile all-in-one up (docker-compose.yml)');
    const started = await up(file, ['all-in-one'], overrides, databaseUrl.toString());
    const [gateway] = started.gateway.containers;
    await checkConfinement({ name: gateway });
    await checkSendAndReceive('compose', `http://127.0.0.1:${publishedPort(gateway)}`, adminToken, receiver);

    log('--- docker compose down (SIGTERM, stop_grace_period)');
    const order = ['gateway', 'all-in-one', 'webhook-dispatcher', 'session-worker'];
    for (const name of order) {
      const grace = seconds(started[name].service.stop_grace_period) ?? 10;
      await Promise.all(started[name].containers.map((container) => checkGracefulStop(container, grace)));
    }
  } catch (error) {
    for (const name of containers) console.error(`--- logs of ${name}\n${logsOf(name)}`);
    throw error;
  } finally {
    for (const name of containers) podman(['rm', '-f', '-v', '-t', '0', name], { allowFailure: true });
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
