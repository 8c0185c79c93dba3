// `npm run bench metrics` (issue 29, finding 3): what scraping /metrics costs other tenants, and
// whether unauthenticated requests can grow the exposition. For each build (BENCH_DIST, default
// "dist"; e.g. "tmp/dist-before,dist" to compare), one all-in-one process on a throwaway database
// of the shared PostgreSQL, scraped on its public port with JUMBE_METRICS_TOKEN (a build before
// the token ignores it and serves anyone):
//   1. another tenant's `GET /usage` latency alone (BENCH_USAGE_REQUESTS sequential requests);
//   2. the same while BENCH_SCRAPERS connections (default 20) scrape /metrics in a loop
//      (autocannon, its own process), with the server's CPU and the scrapes per second;
//   3. the exposition's size and series count before and after 1,505 requests that cycle the
//      methods Node parses over unknown routes, without any credential.
// dist/ is built first when stale; BENCH_OUT=<file> writes the results as JSON.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { METHODS, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { cpuSnapshot } from './support/cpu.mjs';
import { createAccount, createKey, POSTGRES } from './support/deployment.mjs';
import { killAll, pause, root, startService, stopAll } from './support/services.mjs';

const VARIANTS = (process.env.BENCH_DIST ?? 'dist').split(',');
const SCRAPERS = Number(process.env.BENCH_SCRAPERS ?? 20);
const USAGE_REQUESTS = Number(process.env.BENCH_USAGE_REQUESTS ?? 300);
const CYCLED_REQUESTS = 1_505;
const METRICS_TOKEN = `metrics_${randomBytes(16).toString('hex')}`;

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** `count` sequential `GET /usage` of the key's account: each one's milliseconds. */
async function usageLatencies(url, key, count) {
  const latencies = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const response = await fetch(`${url}/api/v1/usage`, { headers: { 'x-api-key': key } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET /usage answered ${response.status}`);
    latencies.push(performance.now() - started);
  }
  return { p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

/** The exposition as the operator scrapes it: its size and its series (non-comment lines). */
async function exposition(url) {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const body = await response.text();
  const series = body.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
  return { status: response.status, bytes: Buffer.byteLength(body), series };
}

/** One request with any method Node sends (fetch refuses some), its answer drained. */
function rawRequest(url, method, path) {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, { method }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    req.on('error', resolve);
    req.end();
  });
}

async function cycleMethods(url) {
  const methods = METHODS.filter((method) => method !== 'CONNECT');
  const routes = ['/', '/x', '/api', '/api/v1/nope', '/admin', '/.env', '/wp-login.php', '/metrics/x'];
  for (let i = 0; i < CYCLED_REQUESTS; i += 1) {
    await rawRequest(url, methods[i % methods.length], `${routes[i % routes.length]}/${i % 5}`);
  }
}

/** `GET /usage` latency while SCRAPERS connections GET `path` in a loop; the server's CPU meanwhile. */
async function underLoad(service, key, path) {
  const load = loadInBackground(`${service.url}${path}`);
  await pause(2_000);
  const cpuBefore = cpuSnapshot({ server: service.pid }).server;
  const startedAt = performance.now();
  const usage = await usageLatencies(service.url, key, USAGE_REQUESTS);
  const cores =
    (cpuSnapshot({ server: service.pid }).server - cpuBefore) / 1e3 / (performance.now() - startedAt);
  return { usage, serverCores: cores, load: await load.stop() };
}

function loadInBackground(url) {
  const spec = {
    url,
    connections: SCRAPERS,
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  };
  let child;
  const done = new Promise((resolve, reject) => {
    child = execFile(
      process.execPath,
      [join(root, 'bench', 'metrics-scraper.mjs'), JSON.stringify(spec)],
      (error, stdout) => (error && !stdout ? reject(error) : resolve(JSON.parse(stdout))),
    );
  });
  // The scraper prints its result once stopped.
  return { stop: () => (child.kill('SIGTERM'), done) };
}

async function throwawayDatabase() {
  const name = `jumbe_bench_metrics_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function measure(dist) {
  const adminToken = `bench_${randomBytes(16).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'jumbe-bench-metrics-'));
  const database = await throwawayDatabase();
  try {
    const env = {
      JUMBE_DATA_DIR: dataDir,
      JUMBE_DATABASE_URL: database.url,
      JUMBE_NETWORK: 'sandbox',
      JUMBE_ADMIN_TOKEN: adminToken,
      JUMBE_METRICS_TOKEN: METRICS_TOKEN,
    };
    const service = await startService(`${dist}/apps/all-in-one/src/main.js`, env, `all-in-one (${dist})`);
    const key = await createKey(service.url, adminToken, await createAccount(service.url, adminToken));
    await usageLatencies(service.url, key, 50); // warm-up
    const alone = await usageLatencies(service.url, key, USAGE_REQUESTS);

    const whileScraped = await underLoad(service, key, '/metrics');
    // The reference: the same connections asking for something that costs nothing (a 404).
    const whileFlooded = await underLoad(service, key, '/no-such-route');

    const anonymous = await fetch(`${service.url}/metrics`);
    const before = await exposition(service.url);
    await cycleMethods(service.url);
    await pause(1_100); // past the exposition's one-second cache
    const after = await exposition(service.url);
    await service.stop();
    return {
      dist,
      usageAlone: alone,
      whileScraped,
      whileFlooded,
      anonymousMetricsStatus: anonymous.status,
      exposition: { before, after },
    };
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const results = [];
  for (const dist of VARIANTS) {
    const result = await measure(dist);
    results.push(result);
    const f = (n) => n.toFixed(1);
    const loaded = (name, { usage, serverCores, load }) =>
      `while ${SCRAPERS} connections ${name} ${f(usage.p50)}/${f(usage.p95)} ms ` +
      `(${f(load.scrapesPerSecond)} req/s, ${Math.round(load.bytesPerScrape / 1024)} KB each, server ${serverCores.toFixed(2)} cores)`;
    console.log(
      `${dist}: GET /usage p50/p95 alone ${f(result.usageAlone.p50)}/${f(result.usageAlone.p95)} ms; ` +
        `${loaded('scrape /metrics', result.whileScraped)}; ${loaded('GET a 404', result.whileFlooded)}; ` +
        `anonymous /metrics ${result.anonymousMetricsStatus}; ` +
        `exposition ${Math.round(result.exposition.before.bytes / 1024)} KB / ${result.exposition.before.series} series → ` +
        `${Math.round(result.exposition.after.bytes / 1024)} KB / ${result.exposition.after.series} series ` +
        `after ${CYCLED_REQUESTS} cycled requests`,
    );
  }
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(results, null, 2));
}

main().then(
  () => stopAll(),
  async (error) => {
    console.error(error);
    killAll();
    process.exitCode = 1;
  },
);
