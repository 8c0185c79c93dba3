import { apiClient } from '@jumbe/testing';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { METHODS, request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
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

/** The operator's credential for /metrics on a service's own port (JUMBE_METRICS_TOKEN). */
const METRICS_TOKEN = `metrics_${randomBytes(16).toString('hex')}`;
const withToken = { authorization: `Bearer ${METRICS_TOKEN}` };

async function scrape(url: string, headers: Record<string, string> = withToken): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
}

/**
 * Scrapes until the exposition matches `pattern` (it is rendered at most once a second, so a
 * request just made may show in the next rendering only); the last text when it never does.
 */
async function scrapeUntil(url: string, pattern: RegExp): Promise<string> {
  let text = await scrape(url);
  for (let i = 0; i < 40 && !pattern.test(text); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    text = await scrape(url);
  }
  return text;
}

/** The method labels of the HTTP metrics: the API's methods, and OTHER for any other. */
const API_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER'];

/** The requests an exposition counts (jumbe_http_requests_total), the scrapes themselves left out. */
function requestsCounted(text: string): number {
  return httpSeries(text)
    .filter((line) => !line.includes('route="/metrics"'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** Scrapes until the exposition counts `requests` requests (or gives up after about 4 s). */
async function scrapeCounting(url: string, requests: number): Promise<string> {
  let text = await scrape(url);
  for (let i = 0; i < 40 && requestsCounted(text) < requests; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    text = await scrape(url);
  }
  return text;
}

/** A series' labels, without its value. */
const labelsOf = (line: string) => line.slice(0, line.lastIndexOf(' '));

/** The label sets of jumbe_http_requests_total in an exposition. */
function httpSeries(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('jumbe_http_requests_total{'));
}

/** A request with any method Node sends (fetch refuses some), resolved with its status. */
function rawRequest(url: string, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(`${url}${path}`, { method }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** `count` sequential requests of `url`: the median of their milliseconds. */
async function medianLatency(url: string, headers: Record<string, string>, count: number): Promise<number> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return latencies[Math.floor(latencies.length / 2)]!;
}

/**
 * Runs `during` while 20 keep-alive connections GET `url` in a loop (autocannon, in a process of
 * its own so its CPU is not this one's); resolves with what `during` gave and the statuses served.
 */
async function whileFlooded<T>(
  url: string,
  headers: Record<string, string>,
  during: () => Promise<T>,
): Promise<{ result: T; statuses: Record<string, number> }> {
  const spec = JSON.stringify({ url, connections: 20, headers });
  const flood = spawn(process.execPath, [join(__dirname, 'support', 'http-flood.mjs'), spec], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  flood.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => flood.once('exit', resolve));
  let result: T;
  try {
    for (let i = 0; i < 200 && !output.includes('started'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    result = await during();
  } finally {
    flood.kill('SIGTERM');
    await exited;
  }
  const summary = JSON.parse(output.trim().split('\n').at(-1)!) as { statuses: Record<string, number> };
  return { result, statuses: summary.statuses };
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
    topology = await startDistributed(1, { JUMBE_METRICS_TOKEN: METRICS_TOKEN }, 1, { dispatchers: 1 });
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

    const text = await scrapeUntil(gateway.url, /^jumbe_messages_sent_total\{/m);
    expect(text).toMatch(/^jumbe_api_hits_total [1-9]/m);
    expect(text).toMatch(/^jumbe_messages_sent_total\{type="text",outcome="[a-z_]+"\} 1$/m);
    expect(text).toMatch(/^jumbe_bus_commands_total\{command="message.send",outcome="[a-z_]+"\} 1$/m);
  });

  it('serves /metrics on each service with its families, by route template, without account data', async () => {
    const gateway = topology.processes[0]!;
    const key = 'jmb_live_notarealkey0000000000000000';
    await fetch(`${gateway.url}/api/v1/session/status?sessionId=sess-1`, { headers: { 'x-api-key': key } });
    const text = await scrapeUntil(gateway.url, /route="\/api\/v1\/session\/status"/);
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

  it('refuses /metrics on every service port without the metrics token, in the error envelope', async () => {
    const account = await createAccount(apiClient(topology.processes[0]!.url), topology.adminToken);
    const services = [topology.processes[0]!, topology.workers[0]!, topology.dispatchers[0]!];
    const credentials: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${METRICS_TOKEN}x` },
      { authorization: `Bearer ${topology.adminToken}` },
      { 'x-api-key': account.key },
    ];
    for (const service of services) {
      for (const headers of credentials) {
        const refused = await fetch(`${service.url}/metrics`, { headers });
        expect(refused.status).toBe(401);
        const body = await refused.text();
        expect(JSON.parse(body)).toEqual({
          message: expect.stringContaining('JUMBE_METRICS_TOKEN'),
          error: { code: 'unauthorized' },
        });
        expect(body).not.toContain('jumbe_');
      }
    }
  });

  it('keeps the series count while anonymous clients cycle unknown methods over unknown routes', async () => {
    const gateway = topology.processes[0]!.url;
    const initial = requestsCounted(await scrape(gateway));
    // One request of each method the API knows, and of two it does not (QUERY, which wants a body,
    // is answered 400; the rest 404), on an unknown route: every label set that may exist, exists.
    const known = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'QUERY'];
    for (const method of known) await rawRequest(gateway, method, '/warm-up');
    const before = await scrapeCounting(gateway, initial + known.length);

    const cycled = METHODS.filter((method) => method !== 'CONNECT' && !known.includes(method));
    expect(cycled.length).toBeGreaterThan(20);
    for (let i = 0; i < 1_500; i += 1) {
      expect(await rawRequest(gateway, cycled[i % cycled.length]!, `/probe-${i}/${i % 7}`)).toBe(404);
    }
    const after = await scrapeCounting(gateway, requestsCounted(before) + 1_500);
    expect(requestsCounted(after)).toBeGreaterThanOrEqual(requestsCounted(before) + 1_500);

    const methods = new Set(httpSeries(after).map((line) => /method="([^"]*)"/.exec(line)![1]!));
    expect([...methods].filter((method) => !API_METHODS.includes(method))).toEqual([]);
    const httpLines = (text: string) => text.split('\n').filter((line) => line.startsWith('jumbe_http_'));
    expect(httpLines(after).map(labelsOf)).toEqual(httpLines(before).map(labelsOf));
  });

  it("keeps another tenant's API latency while 20 connections scrape /metrics as they would any cheap route", async () => {
    const gateway = topology.processes[0]!.url;
    const tenant = await createAccount(apiClient(gateway), topology.adminToken);
    const usage = `${gateway}/api/v1/usage`;
    const key = { 'x-api-key': tenant.key };
    await medianLatency(usage, key, 20);
    const alone = await medianLatency(usage, key, 40);
    // Rounds alternate so that other load on the machine falls on both alike; the reference is the
    // same 20 connections asking for something that costs nothing (an unknown route, 404).
    const reference: number[] = [];
    const scraped: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const flood = await whileFlooded(`${gateway}/no-such-route`, {}, () => medianLatency(usage, key, 40));
      reference.push(flood.result);
      const scrapes = await whileFlooded(`${gateway}/metrics`, withToken, () =>
        medianLatency(usage, key, 40),
      );
      expect(Object.keys(scrapes.statuses)).toEqual(['200']);
      expect(scrapes.statuses['200']).toBeGreaterThan(100);
      scraped.push(scrapes.result);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
    process.stdout.write(
      `GET /usage p50: alone ${alone.toFixed(1)} ms; while 20 connections GET a 404 ` +
        `${reference.map((v) => v.toFixed(1)).join('/')} ms; while they scrape /metrics ` +
        `${scraped.map((v) => v.toFixed(1)).join('/')} ms\n`,
    );
    // Before the exposition was cached, each scrape rendered the registry (and probed every
    // dependency): the tenant waited several times longer than under the 404 flood.
    expect(median(scraped)).toBeLessThanOrEqual(2 * median(reference));
  }, 300_000);
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
    // No credential: the metrics port is kept off the public network instead.
    const text = await scrape(`http://127.0.0.1:${metricsPort}`, {});
    expectFamilies(text, [...COMMON, ...GATEWAY, ...WORKER, ...DISPATCHER]);
    for (const headers of [{}, withToken]) {
      const refused = await fetch(`${topology.processes[0]!.url}/metrics`, { headers });
      expect(refused.status).toBe(404);
      expect(await refused.json()).toEqual({
        message: expect.stringContaining('JUMBE_METRICS_PORT'),
        error: { code: 'not_found' },
      });
    }
  });
});
