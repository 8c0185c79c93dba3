import { startService } from './services.mjs';

/**
 * `gateways` gateways and `workers` session workers of one deployment, as separate processes.
 * Resolves with their URLs and a { label: pid } map for CPU accounting.
 */
export async function startTopology(env, { gateways, workers, label }) {
  const started = { urls: [], processes: {}, services: [] };
  for (let i = 0; i < gateways; i += 1) {
    const name = `${label}-gateway${i + 1}`;
    const gateway = await startService('dist/apps/gateway/src/main.js', env, name);
    started.urls.push(gateway.url);
    started.processes[name] = gateway.pid;
    started.services.push(gateway);
  }
  for (let i = 0; i < workers; i += 1) {
    const name = `${label}-worker${i + 1}`;
    const worker = await startService('dist/apps/session-worker/src/main.js', env, name);
    started.processes[name] = worker.pid;
    started.services.push(worker);
  }
  return started;
}
