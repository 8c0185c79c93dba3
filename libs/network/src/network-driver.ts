import type { NetworkSession } from './network-session';
import type { SessionEvents } from './session-events';
import type { SessionRef } from './session-ref';

/** A messaging network (`whatsapp`, or the simulated `sandbox`) seen in domain terms only. */
export interface NetworkDriver {
  readonly name: 'whatsapp' | 'sandbox';
  /**
   * Opens (or re-opens from stored credentials) the session's connection. `linked` tells whether
   * credentials exist (reconnect: `connecting`, then `connected`) or a fresh login is needed
   * (emit `qr`). Events start after the returned promise resolves. `token` is the fencing token of
   * the shard lease the caller holds: a driver that stores credentials guards every write with it
   * (refused once a newer owner holds the session); the sandbox ignores it.
   */
  open(ref: SessionRef, events: SessionEvents, options: NetworkOpenOptions): Promise<NetworkSession>;
}

export interface NetworkOpenOptions {
  linked: boolean;
  token?: number;
}
