import { apiClient } from '@jumbe/testing';
import { createServer } from 'node:net';
import { createAccount } from './support/operator';
import { type DistributedTopology, startAllInOne, startDistributed, type Topology } from './support/topology';

/** Families every service exposes, and the ones only the parts it hosts can fill. */
const COMMON = [
  'jumbe_http_requests_total',
  'jumbe_http_request_duration_seconds',
  'jumbe_dependency_up',
  'process_cpu_seconds_total',
  'nodejs_heap_size_used_bytes',
];
const GATEWAY = [
  'jumbe_api_hits_total',
  'jumbe_api_refusals_total',
  'jumbe_bus_commands_total',
  'jumbe_bus_command_duration_seconds',
  'jumbe_messages_sent_total',
];
const WORKER = [
  'jumbe_sessions',
  'jumbe_shards_owned',
  'jumbe_shard_lease_acquisitions_total',
  'jumbe_shard_lease_losses_total',
  'jumbe_inbound_events_published_total',
];
const DISPATCHER = [
  'jumbe_shards_owned',
  'jumbe_webhook_deliveries_total',
  'jumbe_webhook_delivery_duration_seconds',
  'jumbe_event_consumer_pending',
];

async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
}

function expectFamilies(text: string, families: string[]): void {
  for (const family of families) expect(text).toMatch(new RegExp(`^# TYPE ${family} `, 'm'));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

describe('observability: distributed gateway, worker and dispatcher', () => {
  let topology: DistributedTopology;

  beforeAll(async () => {
    topology = await startDistributed(1, {}, 1, { dispatchers: 1 });
  }, 180_000);
  afterAll(async () => topology?.stop());

  it('returns the caller X-Request-Id, or a new one, on every response', async () => {
    const url = topology.processes[0]!.url;
    const given = await fetch(`${url}/api/v1/sessions`, { headers: { 'x-request-id': 'trace-me-42' } });
    expect(given.status).toBe(401);
    expect(given.headers.get('x-request-id')).toBe('trace-me-42');
    const generated = await fetch(`${url}/no/such/route`);
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await fetch(`${url}/api/v1/health`, { headers: { 'x-request-id': 'a b<script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs one JSON line per request with its id and account, never the key or the message', async () => {
    const gateway = topology.processes[0]!;
    const api = apiClient(gateway.url);
    const account = await createAccount(api, topology.adminToken);
    const secretText = `never-logged-${Date.now()}`;
    const phone = '254700123987';
    const sent = await fetch(`${gateway.url}/api/v1/messages/text`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': account.key,
        'x-request-id': 'log-check-1',
      },
      body: JSON.stringify({ sessionId: 'absent', to: phone, text: secretText }),
    });
    expect(sent.headers.get('x-request-id')).toBe('log-check-1');
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !line; i += 1) {
      line = gateway
        .logs()
        .split('\n')
        .filter((l) => l.includes('"log-check-1"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l['msg'] === 'request');
      if (!line) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(line).toMatchObject({
      level: 30,
      requestId: 'log-check-1',
      method: 'POST',
      route: '/api/v1/messages/text',
      status: sent.status,
      accountId: account.accountId,
    });
    expect(typeof line!['durationMs']).toBe('number');
    const everything = topology.processes.map((p) => p.logs()).join('\n');
    expect(everything).not.toContain(account.key);
    expect(everything).not.toContain(secretText);
    expect(everything).not.toContain(phone);

    const text = await scrape(gateway.url);
    expect(text).toMatch(/^jumbe_api_hits_total [1-9]/m);
    expect(text).toMatch(/^jumbe_messages_sent_total\{type="text",outcome="[a-z_]+"\} 1$/m);
    expect(text).toMatch(/^jumbe_bus_commands_total\{command="message.send",outcome="[a-z_]+"\} 1$/m);
  });

  it('serves /metrics on each service with its families, by route template, without account data', async () => {
    const gateway = topology.processes[0]!;
    const key = 'jmb_live_notarealkey0000000000000000';
    await fetch(`${gateway.url}/api/v1/session/status?sessionId=sess-1`, { headers: { 'x-api-key': key } });
    const text = await scrape(gateway.url);
    expectFamilies(text, [...COMMON, ...GATEWAY]);
    expect(text).toContain('jumbe_api_refusals_total{status="401"} 2'); // this one and the first test's
    expect(text).toMatch(
      /jumbe_http_requests_total\{route="\/api\/v1\/session\/status",method="GET",status="401"\} 1/,
    );
    expect(text).not.toContain('sess-1');
    expect(text).not.toContain(key);
    expect(text).toMatch(/jumbe_dependency_up\{dependency="database"\} 1/);
    expect(text).toMatch(/jumbe_dependency_up\{dependency="bus"\} 1/);
    expect(text).toMatch(/jumbe_dependency_up\{dependency="coordination"\} 1/);

    const worker = await scrape(topology.workers[0]!.url);
    expectFamilies(worker, [...COMMON, ...WORKER]);
    expect(worker).toMatch(/jumbe_shards_owned\{role="session-worker"\} [1-9]/);
    expect(worker).toMatch(/jumbe_shard_lease_acquisitions_total\{role="session-worker"\} [1-9]/);

    const dispatcher = await scrape(topology.dispatchers[0]!.url);
    expectFamilies(dispatcher, [...COMMON, ...DISPATCHER]);
    expect(dispatcher).toMatch(/jumbe_shards_owned\{role="webhook-dispatcher"\} [1-9]/);
    expect(dispatcher).toMatch(/^jumbe_event_consumer_pending\{shard="\d+"\} 0$/m);
  });
});

describe('observability: the all-in-one with JUMBE_METRICS_PORT', () => {
  let topology: Topology;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    topology = await startAllInOne({ JUMBE_METRICS_PORT: String(metricsPort), JUMBE_HOST: '127.0.0.1' });
  }, 180_000);
  afterAll(async () => topology?.stop());

  it('serves every family on the metrics port only', async () => {
    const text = await scrape(`http://127.0.0.1:${metricsPort}`);
    expectFamilies(text, [...COMMON, ...GATEWAY, ...WORKER, ...DISPATCHER]);
    expect((await fetch(`${topology.processes[0]!.url}/metrics`)).status).toBe(404);
  });
});
