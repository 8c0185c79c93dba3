/** Everything a Jumbe process reads from its environment (CONTRACT §10). */
export interface JumbeConfig {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  natsUrl: string | null;
  redisUrl: string | null;
  network: 'whatsapp' | 'sandbox';
  adminToken: string | null;
  allowPrivateNetworks: boolean;
  secretKey: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest accepted request body in bytes (CONTRACT §1: default 1 MiB). */
  bodyLimitBytes: number;
  /** Requests per key per minute; null means no rate limit (CONTRACT §3). */
  rateLimitPerMinute: number | null;
  /**
   * Names this deployment when several share one Redis and NATS (staging beside production, or
   * parallel test runs): its Redis keys, bus subjects and event stream are kept apart. Null: none.
   */
  deployment: string | null;
  /** How long the gateway waits for the worker that owns a session. */
  commandTimeoutMs: number;
  /**
   * JUMBE_WHATSAPP_VERSION: the WhatsApp Web client version sockets announce (`2.3000.N`); null:
   * fetched from WhatsApp when the first session opens, falling back to Baileys' pinned one.
   */
  whatsappVersion: string | null;
  /**
   * JUMBE_WHATSAPP_URL: the WebSocket address of WhatsApp Web (`wss://` or `ws://`); null:
   * WhatsApp's own. Only the address: the server must still prove it is WhatsApp (its noise
   * certificate chain is checked against WhatsApp's root key), so tests pointing it at the
   * emulator also load the emulator's trust preload in that process.
   */
  whatsappUrl: string | null;
}
