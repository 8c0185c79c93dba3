// Podman as the image checks drive it (tools/image/containers.conf), and what they ask of a container.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const env = {
  ...process.env,
  CONTAINERS_CONF:
    process.env.CONTAINERS_CONF ?? join(dirname(fileURLToPath(import.meta.url)), 'containers.conf'),
};

/** Runs podman to completion; throws with its output unless it exits 0 (or `allowFailure`). */
export function podman(args, { allowFailure = false, input } = {}) {
  const result = spawnSync('podman', args, { env, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0 && !allowFailure) {
    throw new Error(`podman ${args.join(' ')} exited ${result.status}:\n${result.stdout}${result.stderr}`);
  }
  return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

/** Runs podman without blocking the event loop (a webhook receiver in this process must answer meanwhile). */
export function podmanAsync(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('podman', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout: stdout.trim(), stderr: stderr.trim() }));
  });
}

/**
 * The container's own network namespace (so every service listens on 8080, as in Compose and
 * Kubernetes), with the host's loopback reachable as 10.0.2.2: the machine's PostgreSQL, Redis,
 * NATS and the test's webhook receiver listen there.
 */
export const NETWORK = 'slirp4netns:allow_host_loopback=true';
export const HOST_FROM_CONTAINER = '10.0.2.2';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The host port podman published the container's 8080 on. */
export function publishedPort(name) {
  const line = podman(['port', name, '8080/tcp']).stdout.split('\n')[0];
  return Number(line.slice(line.lastIndexOf(':') + 1));
}
