/** Everything a Jumbe process reads from its environment (CONTRACT §10). */
export interface JumbeConfig {
  host: string;
  port: number;
  /** JUMBE_METRICS_PORT: serve /metrics on this port instead of `port` (null: on `port`). */
  metricsPort: number | null;
  /** JUMBE_METRICS_TOKEN: the bearer token /metrics requires (on `port`, it is not served without one). */
  metricsToken: string | null;
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
  /** JUMBE_MEDIA_MAX_BYTES: largest received media file a worker downloads for GET /messages/media. */
  mediaMaxBytes: number;
  /** JUMBE_MEDIA_DOWNLOADS: received media files one worker downloads at once (503 `media_busy` beyond). */
  mediaDownloads: number;
  /** Sessions a worker restores at once when it takes shards over. */
  restoreConcurrency: number;
  /** PostgreSQL connections each process keeps at most (JUMBE_DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /** Real network only: least time between two WhatsApp connections a worker opens. */
  connectSpacingMs: number;
  /**
   * JUMBE_SHARD_COUNT: how many shards sessions and events are spread over. Fixed when the
   * deployment is created (recorded in PostgreSQL on the first start); a process started with
   * another value refuses to start, since changing it would move nearly every session.
   */
  shardCount: number;
  /**
   * Addresses or CIDR ranges of the reverse proxies whose X-Forwarded-For/-Host/-Proto are believed
   * (`JUMBE_TRUST_PROXY`). Empty (the default): no client is trusted, forwarded headers are ignored.
   */
  trustProxy: string[];
  /** Most simultaneous connections one client address may hold (trusted proxies are exempt). */
  maxConnectionsPerAddress: number;
  /** A request's headers must arrive within this time. */
  httpHeadersTimeoutMs: number;
  /** A whole request, body included, must arrive within this time. */
  httpRequestTimeoutMs: number;
  /** A connection with no traffic (idle keep-alive included) is closed after this time. */
  httpIdleTimeoutMs: number;
  /**
   * JUMBE_WHATSAPP_URL: the WebSocket address of WhatsApp Web (`wss://` or `ws://`); null:
   * WhatsApp's own. Only the address: the server must still prove it is WhatsApp (its noise
   * certificate chain is checked against WhatsApp's root key), so tests pointing it at the
   * emulator also load the emulator's trust preload in that process.
   */
  whatsappUrl: string | null;
  /**
   * JUMBE_SHUTDOWN_DELAY_SECONDS: after SIGTERM, how long the process keeps serving with its health
   * check failing (503), so load balancers stop sending before it closes its port. 0: close at once.
   */
  shutdownDelayMs: number;
  /**
   * JUMBE_WEBHOOK_RETRY_BASE_MS: the wait before the first automatic retry of a failed webhook
   * event (for accounts that opted in); each later wait is three times longer, at most 6 h.
   * Default 30 s; tests shorten it.
   */
  webhookRetryBaseMs: number;
  /**
   * JUMBE_STALL_LIMIT_SECONDS: how long a worker or dispatcher whose main thread does not run
   * (starved of CPU, wedged) keeps its shards. Its leases are renewed by a thread of their own,
   * which stops once the main thread has not answered for this long, so a wedged process lets its
   * shards go to the others. Default 30 s.
   */
  leaseStallLimitMs: number;
}
