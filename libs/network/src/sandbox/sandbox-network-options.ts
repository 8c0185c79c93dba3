/** Where the sandbox reports failures it can only retry, never throw (background timers, close). */
export type SandboxLogger = (message: string, error?: unknown) => void;

export interface SandboxNetworkOptions {
  /** How long a QR (or pairing code) waits to be scanned before `disconnected`/`qr_timeout`. */
  qrTimeoutMs?: number;
  /** How long a dropped connection takes to come back. */
  reconnectDelayMs?: number;
  /** How often an inbound message the session failed to record is offered again. */
  redeliveryIntervalMs?: number;
  logger?: SandboxLogger;
}

export type SandboxNetworkSettings = Required<SandboxNetworkOptions>;

export function sandboxNetworkSettings(options: SandboxNetworkOptions = {}): SandboxNetworkSettings {
  return {
    qrTimeoutMs: options.qrTimeoutMs ?? 60_000,
    reconnectDelayMs: options.reconnectDelayMs ?? 200,
    redeliveryIntervalMs: options.redeliveryIntervalMs ?? 1_000,
    logger: options.logger ?? (() => undefined),
  };
}
