import type { NetworkSession } from './network-session';
import type { SessionEvents } from './session-events';
import type { SessionRef } from './session-ref';

/** A messaging network (`whatsapp`, or the simulated `sandbox`) seen in domain terms only. */
export interface NetworkDriver {
  readonly name: 'whatsapp' | 'sandbox';
  /**
   * Opens (or re-opens from stored credentials) the session's connection. `linked` tells whether
   * credentials exist (reconnect: `connecting`, then `connected`) or a fresh login is needed
   * (emit `qr`). Events start after the returned promise resolves.
   */
  open(ref: SessionRef, events: SessionEvents, options: { linked: boolean }): Promise<NetworkSession>;
}
