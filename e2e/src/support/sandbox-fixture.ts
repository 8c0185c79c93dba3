import { type ApiClient, RecordingReceiver } from '@jumbe/testing';
import type { Topology } from './topology';

/** What a describe block's topology offers its tests once `beforeAll` has started it. */
export interface SandboxFixture {
  gateway(): ApiClient;
  adminToken(): string;
  receiver(): RecordingReceiver;
}

/**
 * Starts, for the describe block it is called in, a sandbox topology (`start`: the all-in-one or a
 * distributed one, with local receivers allowed) beside a webhook receiver on this machine, both at
 * once, and stops both after the block. The accessors fail loudly when the start did.
 */
export function useSandboxTopology(start: () => Promise<Topology>): SandboxFixture {
  let running: Topology | undefined;
  let receiver: RecordingReceiver | undefined;

  beforeAll(async () => {
    [running, receiver] = await Promise.all([start(), RecordingReceiver.start()]);
  });

  afterAll(async () => {
    await receiver?.close();
    await running?.stop();
  });

  const started = (): Topology => {
    if (!running) throw new Error('the topology did not start');
    return running;
  };
  return {
    gateway: () => {
      const api = started().gateways[0];
      if (!api) throw new Error('the topology has no gateway');
      return api;
    },
    adminToken: () => started().adminToken,
    receiver: () => {
      if (!receiver) throw new Error('the webhook receiver did not start');
      return receiver;
    },
  };
}
