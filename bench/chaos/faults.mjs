// Injecting and healing each kind of fault of the schedule (schedule.mjs) on a running stack.

/**
 * Runs one fault: injects it, waits its duration, heals it. `ctx` is `{ stack, network, devices }`
 * (`devices[i]`: the emulator's linked device of session i). Resolves with what happened:
 * `{ injectedAt, healedAt, ...details }` (epoch ms).
 */
export async function runFault(fault, ctx, wait) {
  const injectedAt = Date.now();
  const details = await inject(fault, ctx);
  await wait(fault.durationS * 1000);
  Object.assign(details, await heal(fault, ctx));
  return { injectedAt, healedAt: Date.now(), ...details };
}

const workerName = (fault) => `worker-${fault.worker}`;
const processOf = (fault) => (fault.kind.startsWith('worker') ? workerName(fault) : 'dispatcher');
const signalOf = (fault) => (fault.kind.endsWith('sigkill') ? 'SIGKILL' : 'SIGTERM');
const dependencyOf = (fault) => fault.kind.replace('-outage', '');

async function inject(fault, { stack, network, devices }) {
  switch (fault.kind) {
    case 'socket-515':
      return { wasConnected: network.endStream(devices[fault.session], 'restart') };
    case 'tcp-reset':
      await stack.proxies.whatsapp[fault.worker].cut();
      return {};
    case 'keepalive-silence':
      stack.proxies.whatsapp[fault.worker].blackhole();
      return {};
    case 'worker-sigkill':
    case 'worker-sigterm':
    case 'dispatcher-sigkill':
    case 'dispatcher-sigterm': {
      const stopped = await stack.kill(processOf(fault), signalOf(fault));
      return { exit: stopped.exitCode, exitSignal: stopped.signal, shutdownHung: stopped.hung };
    }
    case 'postgres-outage':
    case 'nats-outage':
    case 'redis-outage':
      await stack.proxies[dependencyOf(fault)].cut();
      return {};
    case 'refusal-storm': {
      // WhatsApp has an incident: every login is refused and every open stream ends.
      network.refuseLogins(fault.reason);
      const dropped = devices.filter((device) => network.endStream(device, 'restart')).length;
      return { dropped };
    }
    default:
      throw new Error(`unknown fault ${fault.kind}`);
  }
}

async function heal(fault, { stack, network }) {
  switch (fault.kind) {
    case 'socket-515':
      return {};
    case 'tcp-reset':
    case 'keepalive-silence':
      await stack.proxies.whatsapp[fault.worker].restore();
      return {};
    case 'worker-sigkill':
    case 'worker-sigterm':
    case 'dispatcher-sigkill':
    case 'dispatcher-sigterm':
      await stack.restart(processOf(fault));
      return {};
    case 'postgres-outage':
    case 'nats-outage':
    case 'redis-outage':
      await stack.proxies[dependencyOf(fault)].restore();
      return {};
    case 'refusal-storm':
      network.refuseLogins(null);
      return { refusedLogins: network.refusedLogins };
    default:
      return {};
  }
}
