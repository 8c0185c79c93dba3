import { apiClient, RecordingReceiver, ServiceProcess } from '@jumbe/testing';
import { request as httpRequest } from 'node:http';
import { createAccount } from './support/operator';
import { eventually, linkSession } from './support/sandbox-helpers';
import { type DistributedTopology, startDistributed } from './support/topology';

/** How long the gateway under test keeps serving, readiness failing, after SIGTERM. */
const SHUTDOWN_DELAY_SECONDS = 3;
/** The shard lease: a worker that vanished without handing over is replaced only after this. */
const LEASE_TTL_MS = 6_000;

/** A request whose body arrives in two parts, the second only when the test says so. */
function slowRequest(url: string, path: string, bearer: string, body: object) {
  const payload = Buffer.from(JSON.stringify(body));
  const { hostname, port } = new URL(url);
  let finish!: () => void;
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest(
      {
        hostname,
        port,
        path,
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${bearer}`,
          'content-type': 'application/json',
          'content-length': payload.length,
        },
      },
      (reply) => {
        let text = '';
        reply.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        reply.on('end', () => resolve({ status: reply.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.write(payload.subarray(0, 10));
    finish = () => request.end(payload.subarray(10));
  });
  return { response, finish: () => finish() };
}

/** The status of a request on a fresh connection, or the connection error's code. */
async function statusOf(url: string): Promise<number | string> {
  try {
    return (await fetch(url, { headers: { connection: 'close' } })).status;
  } catch (error) {
    return ((error as Error & { cause?: { code?: string } }).cause?.code ?? String(error)) as string;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Graceful termination (issue 14 item 8), as Kubernetes does it: SIGTERM, then SIGKILL after the
 * grace period. Every service must be done well within it and lose nothing in between.
 */
describe('graceful shutdown on SIGTERM (distributed)', () => {
  let topology: DistributedTopology;
  let receiver: RecordingReceiver;

  beforeAll(async () => {
    [topology, receiver] = await Promise.all([
      startDistributed(1, { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }, 2, { dispatchers: 1 }),
      RecordingReceiver.start(),
    ]);
  });
  afterAll(async () => {
    await receiver?.close();
    await topology?.stop();
  });

  it('a gateway fails readiness first, keeps serving for the delay, finishes in-flight requests, then exits 0', async () => {
    const gateway = await ServiceProcess.start(
      'gateway',
      { ...topology.env, JUMBE_SHUTDOWN_DELAY_SECONDS: String(SHUTDOWN_DELAY_SECONDS) },
      { name: 'gateway-leaving' },
    );
    const account = await createAccount(apiClient(gateway.url), topology.adminToken);
    const inFlight = slowRequest(gateway.url, '/api/v1/admin/plans', topology.adminToken, {
      name: 'created-while-stopping',
      monthlyApiHits: 1000,
      maxSessions: 1,
    });
    await sleep(200);

    const signalledAt = Date.now();
    const exited = gateway.stop('SIGTERM', 30_000);
    await sleep(300);
    // Readiness fails at once, so the load balancer stops sending; the API still answers meanwhile.
    const health = await fetch(`${gateway.url}/api/v1/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'unavailable', checks: { process: 'stopping' } });
    const usage = await apiClient(gateway.url).get('/api/v1/usage', { key: account.key });
    expect(usage.status).toBe(200);

    // After the delay it takes no new connection, but the request already in flight completes.
    await eventually(
      () => statusOf(`${gateway.url}/api/v1/health`),
      (status) => status === 'ECONNREFUSED',
      (SHUTDOWN_DELAY_SECONDS + 5) * 1_000,
    );
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(SHUTDOWN_DELAY_SECONDS * 1_000 - 100);
    inFlight.finish();
    const created = await inFlight.response;
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body).data.name).toBe('created-while-stopping');
    expect(await exited).toBe(0);
  });

  it('a worker hands its shards over: sends work again before its leases could have expired', async () => {
    const api = topology.gateways[0]!;
    const account = await createAccount(api, topology.adminToken, { maxSessions: 10 });
    const sessions = ['s1', 's2', 's3', 's4', 's5', 's6'];
    for (const sessionId of sessions) await linkSession(api, account.key, sessionId);
    const sendEverywhere = () =>
      Promise.all(
        sessions.map(
          async (sessionId) =>
            (
              await api.post('/api/v1/messages/text', {
                key: account.key,
                body: { sessionId, to: '254711111111', text: 'still here?' },
              })
            ).status,
        ),
      );
    expect(await sendEverywhere()).toEqual(sessions.map(() => 200));

    const leaving = topology.workers[0]!;
    const signalledAt = Date.now();
    expect(await leaving.stop('SIGTERM')).toBe(0);
    const recovered = await eventually(
      sendEverywhere,
      (statuses) => statuses.every((s) => s === 200),
      15_000,
    );
    const recoveryMs = Date.now() - signalledAt;
    process.stdout.write(`worker hand-over on SIGTERM: every session sending again after ${recoveryMs} ms\n`);
    expect(recovered).toEqual(sessions.map(() => 200));
    // Released, not abandoned: the other worker took the shards without waiting for the leases to expire.
    expect(recoveryMs).toBeLessThan(LEASE_TTL_MS);

    // Put a second worker back for the tests that follow.
    const replacement = await ServiceProcess.start('session-worker', topology.env, { name: 'worker-3' });
    topology.processes.push(replacement);
    topology.workers.splice(0, 1, replacement);
  });

  it('a dispatcher finishes the delivery in hand: recorded once, never sent again by the next owner', async () => {
    const api = topology.gateways[0]!;
    const account = await createAccount(api, topology.adminToken);
    await linkSession(api, account.key);
    // The receiver takes 3 s to answer: the dispatcher is told to stop in the middle of that.
    receiver.on('/slow', (_request, response) => setTimeout(() => response.end('took my time'), 3_000));
    expect(
      (await api.patch('/api/v1/webhook', { key: account.key, body: { url: `${receiver.url}/slow` } }))
        .status,
    ).toBe(200);
    await api.post('/api/v1/sandbox/inbound', {
      key: account.key,
      body: { from: '254722000111', text: 'first' },
    });
    const [first] = await receiver.waitFor('/slow', 1);
    expect(first!.json.message.text).toBe('first');

    const leaving = topology.dispatchers[0]!;
    expect(await leaving.stop('SIGTERM', 30_000)).toBe(0);
    const deliveries = (await api.get('/api/v1/webhook', { key: account.key })).body.data.deliveries;
    expect(deliveries).toEqual([
      expect.objectContaining({ status: 'success', statusCode: 200, response: 'took my time' }),
    ]);

    // The next dispatcher delivers what follows, and not the finished delivery a second time.
    receiver.on('/slow', (_request, response) => response.end('ok'));
    const next = await ServiceProcess.start('webhook-dispatcher', topology.env, { name: 'dispatcher-2' });
    topology.processes.push(next);
    await api.post('/api/v1/sandbox/inbound', {
      key: account.key,
      body: { from: '254722000111', text: 'second' },
    });
    const received = await receiver.waitFor('/slow', 2);
    await sleep(1_000);
    expect(receiver.at('/slow').map((request) => request.json.message.text)).toEqual(['first', 'second']);
    expect(received[1]!.headers['webhook-id']).not.toBe(first!.headers['webhook-id']);
  });
});
