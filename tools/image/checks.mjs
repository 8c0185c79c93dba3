// What the image checks (tools/image/smoke.mjs, tools/image/compose.mjs) assert of a running Jumbe
// container and of the deployment it belongs to.
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { HOST_FROM_CONTAINER, podman, podmanAsync, sleep } from './podman.mjs';

const require = createRequire(import.meta.url);
export const PG_URL = process.env.JUMBE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.JUMBE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const NATS_URL = process.env.JUMBE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
/** The same URL as a container reaches it: the host's loopback is 10.0.2.2 there. */
export const fromContainer = (url) => url.replace(/(127\.0\.0\.1|localhost)/, HOST_FROM_CONTAINER);

export const log = (line) => console.log(`image: ${line}`);

export function check(condition, what) {
  if (!condition) throw new Error(`image check failed: ${what}`);
  log(`ok  ${what}`);
}

export async function waitHealthy(service, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const response = await fetch(`${service.url}/api/v1/health`).catch(() => undefined);
    if (response?.ok) return;
    const state = podman(['inspect', '--format', '{{.State.Status}}', service.name]).stdout;
    if (state !== 'running') throw new Error(`${service.name} ${state}:\n${logsOf(service.name)}`);
    await sleep(500);
  }
  throw new Error(`${service.name} not healthy within ${timeoutMs / 1000} s:\n${logsOf(service.name)}`);
}

export const logsOf = (name) => {
  const { stdout, stderr } = podman(['logs', '--tail', '40', name], { allowFailure: true });
  return `${stdout}\n${stderr}`;
};

/** Who the process runs as, what it may write, and the HEALTHCHECK the image declares. */
export async function checkConfinement(service, writable = ['/tmp']) {
  check(
    podman(['exec', service.name, 'id', '-u']).stdout === '1000',
    `${service.name} runs as uid 1000 (node)`,
  );
  const rootWrite = podman(['exec', service.name, 'sh', '-c', 'touch /app/probe 2>&1'], {
    allowFailure: true,
  });
  check(
    rootWrite.status !== 0 && /Read-only/i.test(rootWrite.stdout),
    `${service.name}: the root file system is read-only`,
  );
  const probes = writable.map((dir) => `${dir}/probe`).join(' ');
  const scratch = podman(['exec', service.name, 'sh', '-c', `touch ${probes}`], { allowFailure: true });
  check(scratch.status === 0, `${service.name}: ${writable.join(' and ')} writable`);
  // The image's HEALTHCHECK (docker format keeps it), as `docker ps` and Compose would run it.
  // Passing once is what the check proves here (the command, the port, the route); how many misses
  // make a container unhealthy is compose.mjs's part. A check that starts a Node process can run
  // past its 3 s timeout on a loaded machine, so it gets 30 s to pass.
  let health;
  for (const deadline = Date.now() + 30_000; health?.status !== 0 && Date.now() < deadline;) {
    if (health) await sleep(2000);
    health = await podmanAsync(['healthcheck', 'run', service.name]);
  }
  check(health.status === 0, `${service.name}: the image's HEALTHCHECK passes`);
}

/** SIGTERM (what `docker stop` and Kubernetes send first): drains and exits 0 within the grace period. */
export async function checkGracefulStop(name, graceSeconds) {
  const started = Date.now();
  await podmanAsync(['stop', '-t', String(graceSeconds), name]);
  const seconds = (Date.now() - started) / 1000;
  const exitCode = podman(['inspect', '--format', '{{.State.ExitCode}}', name]).stdout;
  check(
    exitCode === '0' && seconds < graceSeconds,
    `${name}: SIGTERM -> exit ${exitCode} in ${seconds.toFixed(1)} s (grace ${graceSeconds} s)`,
  );
}

/** A webhook receiver on the host, as a user's backend: records signed deliveries. */
export async function startReceiver(cleanups) {
  const deliveries = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ headers: request.headers, raw: Buffer.concat(chunks) });
      response.writeHead(200).end('ok');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: server.address().port, deliveries };
}

export function call(base, method, path, { key, bearer, body } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (key) headers['x-api-key'] = key;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  return fetch(`${base}/api/v1${path}`, { method, headers, body: body && JSON.stringify(body) }).then(
    async (response) => ({ status: response.status, body: await response.json().catch(() => undefined) }),
  );
}

export async function eventually(read, ok, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`image check failed: ${what} (last: ${JSON.stringify(value)})`);
    await sleep(200);
  }
}

/** The tour's path through one deployment: account, linked sandbox session, a send, an inbound message. */
export async function checkSendAndReceive(label, base, adminToken, receiver) {
  const run = randomBytes(3).toString('hex');
  const plan = await call(base, 'POST', '/admin/plans', {
    bearer: adminToken,
    body: { name: `image-${run}`, monthlyApiHits: 1000, maxSessions: 2 },
  });
  check(plan.status === 201, `${label}: admin API creates a plan`);
  const account = await call(base, 'POST', '/admin/accounts', {
    bearer: adminToken,
    body: { name: `image-${run}`, plan: `image-${run}` },
  });
  const created = await call(base, 'POST', `/admin/accounts/${account.body.data.id}/keys`, {
    bearer: adminToken,
    body: { name: 'image', scope: 'full' },
  });
  const key = created.body.key;
  check(typeof key === 'string', `${label}: account and API key created`);

  check((await call(base, 'POST', '/session/start', { key })).status === 200, `${label}: session started`);
  await eventually(
    () => call(base, 'GET', '/session/qr', { key }),
    (r) => r.body?.data?.state === 'qr_ready',
    'QR ready',
  );
  const phone = `2547${String(randomInt(0, 1e8)).padStart(8, '0')}`;
  const scanned = await call(base, 'POST', '/sandbox/scan', { key, body: { phoneNumber: phone } });
  check(scanned.body?.data?.state === 'connected', `${label}: sandbox phone scanned, session connected`);

  const hook = `/hook-${label}`;
  const webhook = await call(base, 'PATCH', '/webhook', {
    key,
    body: { url: `http://${HOST_FROM_CONTAINER}:${receiver.port}${hook}` },
  });
  check(
    webhook.status === 200 && typeof webhook.body.secret === 'string',
    `${label}: webhook set to the host's receiver`,
  );

  const text = `Habari from the ${label} image ${run}`;
  const sent = await call(base, 'POST', '/messages/text', { key, body: { to: '254711111111', text } });
  check(
    sent.status === 200 && typeof sent.body?.data?.key?.id === 'string',
    `${label}: POST /messages/text -> 200`,
  );
  await eventually(
    () => call(base, 'GET', '/sandbox/outbox?limit=5', { key }),
    (r) => (r.body?.data ?? []).some((entry) => entry.id === sent.body.data.key.id),
    'the send reaches the sandbox outbox',
  );
  log(`ok  ${label}: the sent message is in the sandbox outbox`);

  const inbound = `Jambo to the ${label} image ${run}`;
  const posted = await call(base, 'POST', '/sandbox/inbound', {
    key,
    body: { from: '254722000001', text: inbound },
  });
  check(posted.status === 200, `${label}: POST /sandbox/inbound -> 200`);
  const delivery = await eventually(
    async () => receiver.deliveries.find((d) => d.raw.includes(inbound)),
    (d) => d !== undefined,
    'message.received reaches the webhook receiver',
  );
  const payload = JSON.parse(delivery.raw.toString('utf8'));
  const expected = createHmac('sha256', webhook.body.secret)
    .update(`${delivery.headers['x-service-timestamp']}.`)
    .update(delivery.raw)
    .digest('hex');
  check(
    payload.event === 'message.received' && delivery.headers['x-service-signature'] === `sha256=${expected}`,
    `${label}: message.received delivered to the host's receiver, signature valid`,
  );
}

/** What a deployment leaves on the shared servers: its Redis keys and its JetStream streams. */
export async function removeDeploymentState(deployment) {
  const Redis = require('ioredis');
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${deployment}/*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  const { connect } = require('nats');
  const nats = await connect({ servers: NATS_URL.replace(/^nats:\/\//, '') });
  const manager = await nats.jetstreamManager();
  const suffix = deployment.toUpperCase().replace(/-/g, '_');
  for await (const stream of manager.streams.list()) {
    const name = stream.config.name;
    if (name.includes(suffix) || name.includes(deployment))
      await manager.streams.delete(name).catch(() => undefined);
  }
  await nats.close();
}
