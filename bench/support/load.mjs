import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const generator = join(dirname(fileURLToPath(import.meta.url)), '..', 'load-generator.mjs');

export const SEND_BODY = JSON.stringify({ to: '254711111111', text: 'Habari, your order 42 is on its way.' });

/**
 * One load round in a process of its own (autocannon's CPU must not be counted as, nor compete
 * in-process with, the target's). Resolves with requests per second, 2xx count, latency p50/p99.
 */
export function runLoad({ urls, connections = 50, durationS, key, keys, body = SEND_BODY, bodies }) {
  const spec = {
    urls: (Array.isArray(urls) ? urls : [urls]).map((url) => `${url}/api/v1/messages/text`),
    connections,
    durationS,
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body,
    keys,
    bodies,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [generator, JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)));
    });
  });
}
