import { readFileSync, readdirSync } from 'node:fs';

/** Pids of the shared servers (redis-server, nats-server) by command name, for indicative CPU. */
export function infrastructurePids() {
  const found = {};
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const name = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (name === 'redis-server' || name === 'nats-server') found[name] ??= Number(entry);
    } catch {
      // exited meanwhile
    }
  }
  return found;
}
