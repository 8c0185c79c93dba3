import type { JumbeConfig } from '@jumbe/config';
import {
  type NetworkDriver,
  NetworkSendError,
  SandboxNetworkDriver,
  type SandboxStore,
} from '@jumbe/network';

/**
 * The driver a worker connects sessions with. The WhatsApp (Baileys) driver is a separate piece
 * of work; until it lands, starting a session on the real network fails with a clear 502 instead
 * of pretending.
 */
export function createNetworkDriver(config: JumbeConfig, sandboxStore: SandboxStore): NetworkDriver {
  if (config.network === 'sandbox') return new SandboxNetworkDriver(sandboxStore);
  return {
    name: 'whatsapp',
    open: async () => {
      throw new NetworkSendError(
        'network_error',
        'the WhatsApp driver is not available in this build; run with JUMBE_NETWORK=sandbox to try Jumbe on the simulated network',
      );
    },
  };
}
