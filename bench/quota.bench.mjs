// `npm run bench quota` (issue 15 scenario 6): many keys of one account sending through two
// gateways (one worker). Part 1, rounds: the cost of quota enforcement — 50 keys of an account
// with a cap far away against one key of an uncapped account (scenario 1's load), both through
// the same two gateways. Part 2, at the cap: an account allowed BENCH_QUOTA_CAP hits, 50 keys, 50
// connections over both gateways until every request is refused: the 2xx answers plus the hits
// spent before the load (linking the session) must equal the cap exactly, and so must the counter.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Redis from 'ioredis';
import {
  createAccount,
  createDeployment,
  createKey,
  linkDefaultSession,
  REDIS,
} from './support/deployment.mjs';
import { runLoad } from './support/load.mjs';
import { runRounds, warmUp, DURATION_S } from './support/rounds.mjs';
import { killAll, pause, root, stopAll } from './support/services.mjs';
import { median, spread } from './support/stats.mjs';
import { startTopology } from './support/topology.mjs';

const KEYS = 50;
const CAP = Number(process.env.BENCH_QUOTA_CAP ?? 5_000);

/** An account on a plan of `cap` hits with a linked default session and `keys` keys. */
async function account(url, adminToken, cap, keys) {
  const accountId = await createAccount(url, adminToken, { monthlyApiHits: cap });
  const all = [];
  for (let i = 0; i < keys; i += 1) all.push(await createKey(url, adminToken, accountId));
  await linkDefaultSession(url, all[0]);
  return { accountId, keys: all };
}

/** The account's API hits this cycle, as the gateways' shared counter holds them. */
async function hitsCounted(redis, deployment, accountId) {
  const cycle = new Date().toISOString().slice(0, 8) + '01';
  return Number(await redis.hget(`${deployment}/jumbe:usage:{${accountId}}:${cycle}`, 'apiHits'));
}

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs')], { stdio: 'inherit' });
  const adminToken = `bench_${randomBytes(16).toString('hex')}`;
  const deployment = await createDeployment(adminToken);
  const redis = new Redis(REDIS);
  try {
    const topology = await startTopology(deployment.env, { gateways: 2, workers: 1, label: 'quota' });
    await pause(2_000);
    const [url] = topology.urls;
    const uncapped = await account(url, adminToken, 1e12, 1);
    const capped = await account(url, adminToken, 1e9, KEYS);
    const targets = [
      { name: 'one key, no cap', urls: topology.urls, key: uncapped.keys[0], processes: topology.processes },
      { name: `${KEYS} keys, capped`, urls: topology.urls, keys: capped.keys, processes: topology.processes },
    ];
    for (const target of targets) await warmUp(target);
    const { results, loads, idle } = await runRounds(targets);
    console.log(`idle CPU (µs per second, subtracted): ${JSON.stringify(idle)}`);
    const [plain, many] = Object.values(results);
    console.table(
      Object.entries(results).map(([name, runs]) => ({
        target: name,
        'req/s': spread(runs.map((r) => r.requestsPerSecond)),
        'p99 ms': spread(runs.map((r) => r.p99Ms)),
        'CPU µs/request': spread(runs.map((r) => r.cpu.total)),
        'non-2xx': runs.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
      })),
    );
    const ratios = plain.map((r, i) => many[i].requestsPerSecond / r.requestsPerSecond);
    const cpuRatios = plain.map((r, i) => many[i].cpu.total / r.cpu.total);
    console.log(
      `${KEYS} keys capped / one key uncapped: req/s ${spread(ratios, 3)}, CPU/request ${spread(cpuRatios, 3)}; ` +
        `load average ${spread(loads, 1)} (${plain.length} rounds of ${DURATION_S} s)`,
    );

    const atCap = await account(url, adminToken, CAP, KEYS);
    const before = await hitsCounted(redis, deployment.env.JUMBE_DEPLOYMENT, atCap.accountId);
    // Long enough to spend the cap several times over at the throughput measured above.
    const rate = Math.max(1, median(many.map((r) => r.requestsPerSecond)));
    const durationS = Math.min(90, Math.max(5, Math.ceil((3 * CAP) / rate)));
    const load = await runLoad({ urls: topology.urls, keys: atCap.keys, durationS });
    const after = await hitsCounted(redis, deployment.env.JUMBE_DEPLOYMENT, atCap.accountId);
    const verdict = before + load.ok === CAP && after === CAP ? 'exact: no overshoot' : 'MISMATCH';
    console.table([
      {
        cap: CAP,
        'hits before the load': before,
        '2xx during the load': load.ok,
        'before + 2xx': before + load.ok,
        'counter after': after,
        statuses: JSON.stringify(load.statuses),
        'load s': durationS,
        verdict,
      },
    ]);
    if (verdict !== 'exact: no overshoot') process.exitCode = 1;
  } finally {
    redis.disconnect();
    await stopAll();
    await deployment.drop();
  }
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exit(1);
});
