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

/** Newer than the version the workers announce (JUMBE_WHATSAPP_VERSION in stack.mjs). */
const BUMPED_VERSION = [2, 3000, 1027934702];

/** Whether the emulator in use has this fault injection (some arrived with issue 28). */
const supports = (network, method) => typeof network[method] === 'function';

/** Ends every connected device's stream (515), so each logs in again into the fault. */
const dropAll = (network, devices) => devices.filter((device) => network.endStream(device, 'restart')).length;

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
    case 'stream-error-unknown':
      if (!supports(network, 'startRefusalStorm'))
        return { notInjected: 'the emulator has no unknown stream error' };
      return { wasConnected: network.endStream(devices[fault.session], 'unknown') };
    case 'refusal-storm': {
      // WhatsApp has an incident: every login is refused and every open stream ends.
      if (supports(network, 'startRefusalStorm')) network.startRefusalStorm(fault.reason);
      else if (typeof fault.reason === 'number') network.refuseLogins(fault.reason);
      else return { notInjected: 'the emulator has no unknown-stream-error refusals' };
      return { dropped: dropAll(network, devices) };
    }
    case 'version-bump': {
      if (!supports(network, 'requireClientVersion'))
        return { notInjected: 'the emulator checks no client version' };
      network.requireClientVersion(BUMPED_VERSION);
      return { dropped: dropAll(network, devices) };
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
      if (supports(network, 'stopRefusalStorm')) network.stopRefusalStorm();
      network.refuseLogins(null);
      return { refusedLogins: network.refusedLogins };
    case 'version-bump':
      if (supports(network, 'requireClientVersion')) network.requireClientVersion(null);
      return { refusedLogins: network.refusedLogins };
    default:
      return {};
  }
}
