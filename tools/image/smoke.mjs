// Runs the built image the way users run it and checks what they rely on:
//   node tools/image/smoke.mjs [IMAGE]          (default jumbe:ci; tools/image/ci.sh runs it)
// 1. all-in-one: `--read-only --tmpfs /tmp -v <volume>:/data`, every capability dropped;
// 2. distributed: `jumbe migrate`, then gateway, session-worker and webhook-dispatcher containers
//    against this machine's PostgreSQL, Redis and NATS (JetStream), /data a tmpfs as in Compose
//    (only the all-in-one writes its data dir; the services keep their state in the servers).
// Each: runs as uid 1000 (`node`), cannot write its root file system, passes the image's own
// HEALTHCHECK, links a sandbox session, sends a text (seen in the sandbox outbox), receives an
// inbound message (posted, signed, to a webhook receiver on the host), and on SIGTERM drains and
// exits 0 within its grace period.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  check,
  checkConfinement,
  checkGracefulStop,
  checkSendAndReceive,
  eventually,
  fromContainer,
  log,
  logsOf,
  NATS_URL,
  PG_URL,
  REDIS_URL,
  removeDeploymentState,
  startReceiver,
  waitHealthy,
} from './checks.mjs';
import { NETWORK, podman, publishedPort } from './podman.mjs';

const require = createRequire(import.meta.url);
const IMAGE = process.argv[2] ?? 'jumbe:ci';
const RUN_ID = randomBytes(3).toString('hex');

const containers = [];
const cleanups = [];

/** `docker run -d` with what the README and Compose ask for: read-only root, tmpfs /tmp, no capabilities. */
function runService(name, args, env, data = ['--tmpfs', '/data']) {
  const confined = [
    '--read-only',
    '--tmpfs',
    '/tmp',
    ...data,
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
  ];
  const network = ['--network', NETWORK, '-p', '127.0.0.1::8080'];
  const envArgs = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  podman(['run', '-d', '--name', name, ...confined, ...network, ...envArgs, IMAGE, ...args]);
  containers.push(name);
  return { name, url: `http://127.0.0.1:${publishedPort(name)}` };
}

async function allInOne(receiver) {
  log('--- all-in-one (embedded PostgreSQL, read-only root, /data volume)');
  const volume = `jumbe-ci-${RUN_ID}-data`;
  podman(['volume', 'create', volume]);
  cleanups.push(() => podman(['volume', 'rm', '-f', volume], { allowFailure: true }));
  const adminToken = `admin_${randomBytes(16).toString('hex')}`;
  const service = runService(
    `jumbe-ci-${RUN_ID}-all-in-one`,
    ['all-in-one'],
    { JUMBE_NETWORK: 'sandbox', JUMBE_ADMIN_TOKEN: adminToken, JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' },
    ['-v', `${volume}:/data`],
  );
  await waitHealthy(service);
  check(true, `${service.name} healthy on ${service.url}`);
  await checkConfinement(service, ['/tmp', '/data']);
  await checkSendAndReceive('all-in-one', service.url, adminToken, receiver);
  await checkGracefulStop(service.name, 30);
}

async function distributed(receiver) {
  log(
    '--- distributed (jumbe migrate, gateway, session-worker, webhook-dispatcher; host PostgreSQL/Redis/NATS)',
  );
  const { Client } = require('pg');
  const database = `jumbe_image_${RUN_ID}`;
  const admin = new Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const deployment = `image-${RUN_ID}`;
  cleanups.push(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await removeDeploymentState(deployment);
  });
  const databaseUrl = new URL(PG_URL);
  databaseUrl.pathname = `/${database}`;
  const adminToken = `admin_${randomBytes(16).toString('hex')}`;
  const env = {
    JUMBE_DEPLOYMENT: deployment,
    JUMBE_DATABASE_URL: fromContainer(databaseUrl.toString()),
    JUMBE_REDIS_URL: fromContainer(REDIS_URL),
    JUMBE_NATS_URL: fromContainer(NATS_URL),
    JUMBE_SECRET_KEY: randomBytes(32).toString('base64url'),
    JUMBE_ADMIN_TOKEN: adminToken,
    JUMBE_NETWORK: 'sandbox',
    JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const migrate = podman(
    [
      'run',
      '--rm',
      '--read-only',
      '--tmpfs',
      '/tmp',
      '--cap-drop',
      'ALL',
      '--network',
      NETWORK,
      ...envArgs,
      IMAGE,
      'jumbe',
      'migrate',
    ],
    { allowFailure: true },
  );
  check(
    migrate.status === 0,
    `jumbe migrate exits 0${migrate.status === 0 ? '' : `:\n${migrate.stdout}\n${migrate.stderr}`}`,
  );

  const gateway = runService(`jumbe-ci-${RUN_ID}-gateway`, ['gateway'], env);
  const worker = runService(`jumbe-ci-${RUN_ID}-session-worker`, ['session-worker'], env);
  const dispatcher = runService(`jumbe-ci-${RUN_ID}-webhook-dispatcher`, ['webhook-dispatcher'], env);
  for (const service of [gateway, worker, dispatcher]) {
    await waitHealthy(service);
    check(true, `${service.name} healthy`);
  }
  for (const service of [worker, dispatcher]) {
    await eventually(
      async () => podman(['logs', service.name], { allowFailure: true }),
      ({ stdout, stderr }) => /"shardsHeld":64/.test(stdout + stderr),
      `${service.name} holds all 64 shards`,
    );
    log(`ok  ${service.name} holds all 64 shards`);
  }
  for (const service of [gateway, worker, dispatcher]) await checkConfinement(service);
  await checkSendAndReceive('distributed', gateway.url, adminToken, receiver);
  // The Kubernetes manifests' grace periods: gateway 30 s, worker 60 s, dispatcher 45 s.
  await checkGracefulStop(gateway.name, 30);
  await checkGracefulStop(dispatcher.name, 45);
  await checkGracefulStop(worker.name, 60);
}

async function main() {
  const started = Date.now();
  const receiver = await startReceiver(cleanups);
  try {
    await allInOne(receiver);
    await distributed(receiver);
    log(`all checks passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
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
