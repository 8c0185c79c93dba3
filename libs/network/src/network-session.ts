import type { OutboundMessage } from './outbound-message';
import type { SentKey } from './sent-key';

/** One open connection of one session to the network, as returned by NetworkDriver.open. */
export interface NetworkSession {
  /** Switches a session waiting for a QR scan to pairing-code login; emits `pairing_code`. */
  requestPairingCode(phoneNumber: string): Promise<string>;
  /** Sends one message of any kind; fails with NetworkSendError. */
  send(message: OutboundMessage): Promise<SentKey>;
  /** Unlinks the device; emits `disconnected`/`logged_out`. The caller clears the stored credentials. */
  logout(): Promise<void>;
  /**
   * Planned stop (shutdown, shard hand-over): no reconnect, no logout, credentials kept. Emits
   * `disconnected`/`shutdown` before it resolves, so every connection ends with exactly one
   * `disconnected`; callers that are handing over must not record that as the session's state.
   */
  close(): Promise<void>;
}
