import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { distributed, allInOne, start } from './inbound-topology.mjs';
import { post } from './inbound-load.mjs';
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
async function call(url, method, body, headers = {}) {
  const response = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const parsed = await response.json().catch(() => null);
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}
const adminToken = `bench_${randomBytes(16).toString('hex')}`;
const started = process.argv[2] === 'aio' ? await allInOne(adminToken) : await distributed(adminToken);
const gateway = started.gateway;
try {
  const admin = { authorization: `Bearer ${adminToken}` };
  const plan = `bench-${randomBytes(3).toString('hex')}`;
  await call(`${gateway}/api/v1/admin/plans`, 'POST', { name: plan, monthlyApiHits: 1e12, maxSessions: 20 }, admin);
  const account = await call(`${gateway}/api/v1/admin/accounts`, 'POST', { name: 'bench', plan }, admin);
  const { key } = await call(`${gateway}/api/v1/admin/accounts/${account.data.id}/keys`, 'POST', {}, admin);
  const headers = { 'x-api-key': key };
  const sessionIds = Array.from({ length: 20 }, (_, i) => `line${i}`);
  const prefix = `2547${String(Math.floor(Math.random() * 9_000) + 1_000)}`;
  for (const sessionId of sessionIds) {
    await call(`${gateway}/api/v1/session/start`, 'POST', { sessionId }, headers);
    for (;;) {
      const scanned = await call(`${gateway}/api/v1/sandbox/scan`, 'POST', { sessionId, phoneNumber: `${prefix}${sessionId.slice(4).padStart(4, '0')}` }, headers).catch(() => null);
      if (scanned?.data?.state === 'connected') break;
      await pause(100);
    }
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  console.log("measuring");
  for (const conc of (process.env.CONCS ?? "1,20,100").split(",").map(Number)) {
    const lat = []; let n = 0; const t0 = performance.now();
    await Promise.all(Array.from({ length: conc }, async (_, lane) => {
      while (performance.now() - t0 < 4000) {
        const s = performance.now();
        const st = await post(agent, `${gateway}/api/v1/sandbox/inbound`, { sessionId: sessionIds[(n++) % 20], from: '254722000001', text: `probe ${n} 0` }, headers);
        lat.push(performance.now() - s);
        if (st !== 200) console.log('status', st);
      }
    }));
    lat.sort((a, b) => a - b);
    console.log(`conc ${conc}: ${Math.round(lat.length / ((performance.now() - t0) / 1000))}/s p50 ${lat[lat.length >> 1].toFixed(1)} p99 ${lat[Math.floor(lat.length * 0.99)].toFixed(1)}`);
    // also a plain authenticated GET for comparison
    const lat2 = []; const t1 = performance.now();
    await Promise.all(Array.from({ length: conc }, async () => {
      while (performance.now() - t1 < 2000) {
        const s = performance.now();
        await new Promise((res) => http.get(`${gateway}/api/v1/session/status?sessionId=line0`, { agent, headers }, (r) => { r.resume(); r.on('end', res); }));
        lat2.push(performance.now() - s);
      }
    }));
    lat2.sort((a, b) => a - b);
    console.log(`  status conc ${conc}: ${Math.round(lat2.length / ((performance.now() - t1) / 1000))}/s p50 ${lat2[lat2.length >> 1].toFixed(1)}`);
  }
  console.log('backlog', await started.backlog());
} finally { await started.stop(); }
