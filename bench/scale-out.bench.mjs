// `npm run bench scale-out` (issue 15 scenario 4): send throughput of 2 gateways + 2 workers
// against 1 gateway + 1 worker on the same machine, with a bare Fastify server as the baseline of
// every round. Both deployments run side by side (each idle while the other is loaded); each has
// one account with BENCH_SESSIONS (16) linked sandbox sessions, and every connection sends through
// one of them, so the load spreads over both workers' shards (and, for 2 gateways, over both
// gateways). Failover time is `npm run bench takeover` (BENCH_TAKEOVER_SIZES=100,1000).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  bodiesFor,
  createAccount,
  createDeployment,
  createKey,
  linkSessions,
} from './support/deployment.mjs';
import { runRounds, warmUp, DURATION_S } from './support/rounds.mjs';
import { killAll, pause, root, startService, stopAll } from './support/services.mjs';
import { median, spread } from './support/stats.mjs';
import { startTopology } from './support/topology.mjs';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 16);

async function deploymentWith(adminToken, gateways, workers, label) {
  const deployment = await createDeployment(adminToken);
  const topology = await startTopology(deployment.env, { gateways, workers, label });
  await pause(8_000); // a second worker takes its half of the shards (leases of 6 s)
  const accountId = await createAccount(topology.urls[0], adminToken, { maxSessions: SESSIONS });
  const key = await createKey(topology.urls[0], adminToken, accountId);
  const sessionIds = Array.from({ length: SESSIONS }, (_, i) => `line${i}`);
  await linkSessions(topology.urls[0], key, sessionIds);
  return {
    deployment,
    target: {
      name: label,
      urls: topology.urls,
      key,
      bodies: bodiesFor(sessionIds),
      processes: topology.processes,
    },
  };
}

async function main() {
  execFileSync(process.execPath, [join(root, 'tools', 'build.mjs')], { stdio: 'inherit' });
  const adminToken = `bench_${randomBytes(16).toString('hex')}`;
  const deployments = [];
  try {
    const bare = await startService('bench/baseline-server.mjs', {}, 'bare-fastify');
    const one = await deploymentWith(adminToken, 1, 1, '1+1');
    deployments.push(one.deployment);
    const two = await deploymentWith(adminToken, 2, 2, '2+2');
    deployments.push(two.deployment);
    const targets = [{ name: 'bare', urls: bare.url, processes: { bare: bare.pid } }, one.target, two.target];
    for (const target of targets) await warmUp(target);
    const { results, loads, idle } = await runRounds(targets);
    console.log(`idle CPU (µs per second, subtracted): ${JSON.stringify(idle)}`);
    const rounds = results.bare.length;
    const per = (target, base, value) =>
      Array.from({ length: rounds }, (_, i) => value(results[target][i]) / value(results[base][i]));
    const rps = (r) => r.requestsPerSecond;
    const cpu = (r) => r.cpu.total;
    console.table(
      Object.entries(results).map(([name, runs]) => ({
        target: name,
        'req/s': spread(runs.map(rps)),
        'p99 ms': spread(runs.map((r) => r.p99Ms)),
        'CPU µs/request': spread(runs.map(cpu)),
        'per process': JSON.stringify(
          Object.fromEntries(
            Object.keys(runs[0].cpu.perProcess).map((p) => [p, median(runs.map((r) => r.cpu.perProcess[p]))]),
          ),
        ),
        'non-2xx': runs.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
      })),
    );
    console.table([
      { ratio: '2+2 / 1+1 req/s', 'median [min–max]': spread(per('2+2', '1+1', rps), 3) },
      { ratio: '1+1 / bare req/s', 'median [min–max]': spread(per('1+1', 'bare', rps), 3) },
      { ratio: '2+2 / bare req/s', 'median [min–max]': spread(per('2+2', 'bare', rps), 3) },
      { ratio: '2+2 / 1+1 CPU/request', 'median [min–max]': spread(per('2+2', '1+1', cpu), 3) },
    ]);
    console.log(
      `${rounds} rounds of ${DURATION_S} s, 50 connections over ${SESSIONS} sessions; load average ${spread(loads, 1)}`,
    );
  } finally {
    await stopAll();
    for (const deployment of deployments) await deployment.drop();
  }
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exit(1);
});
