import { ServiceProcess } from '@jumbe/testing';
import { EmulatedNetwork, WhatsAppEmulator } from '@jumbe/whatsapp-emulator';
import { join } from 'node:path';
import { type DistributedTopology, startDistributed } from './topology';

/** The built trust preload: a worker started with it trusts the emulator's certificate root. */
export const TRUST_PRELOAD = join(
  __dirname,
  '..',
  '..',
  '..',
  'dist',
  'libs',
  'whatsapp-emulator',
  'src',
  'trust-preload.js',
);

/** Announced by every worker, so none asks web.whatsapp.com for the current version. */
const PINNED_VERSION = '2.3000.1027934701';

export interface EmulatedTopology {
  topology: DistributedTopology;
  emulator: WhatsAppEmulator;
  network: EmulatedNetwork;
  /** Starts a session worker on the real WhatsApp driver, pointed at the emulator. */
  startWorker(name: string, options?: { trusted?: boolean }): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

/**
 * A distributed deployment on the real WhatsApp driver (`JUMBE_NETWORK=whatsapp`) whose workers
 * talk to an in-process emulator (`JUMBE_WHATSAPP_URL`): one gateway, one webhook dispatcher,
 * and workers started by the test, with the trust preload (`NODE_OPTIONS=--require`) or without.
 */
export async function startWithEmulator(): Promise<EmulatedTopology> {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const url = await emulator.start();
  const topology = await startDistributed(
    1,
    {
      JUMBE_NETWORK: 'whatsapp',
      JUMBE_WHATSAPP_URL: url,
      JUMBE_WHATSAPP_VERSION: PINNED_VERSION,
      JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    0,
    { dispatchers: 1 },
  );
  const workers: ServiceProcess[] = [];
  return {
    topology,
    emulator,
    network,
    async startWorker(name, options = {}) {
      const env = {
        ...topology.env,
        ...(options.trusted === false ? {} : { NODE_OPTIONS: `--require ${TRUST_PRELOAD}` }),
      };
      const worker = await ServiceProcess.start('session-worker', env, { name });
      workers.push(worker);
      await waitForShards(worker);
      return worker;
    },
    async stop() {
      await Promise.all(workers.map((worker) => worker.stop()));
      await topology.stop();
      await emulator.stop();
    },
  };
}

/** Waits until the worker's log shows it holds shards (alone, it takes all 64). */
async function waitForShards(worker: ServiceProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (/"shardsHeld":[1-9]/.test(worker.logs())) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${worker.name} took no shard in time`);
}
