import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import type { JumbeConfig } from './jumbe-config';
import { DEFAULT_RETRY_BASE_MS, DEFAULT_SHARD_COUNT, MAX_SHARD_COUNT } from '@jumbe/domain';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** Each problem on its own, so a process can print one line per problem. */
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[], summary?: string) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(summary ?? list.join('; '));
    this.problems = list;
  }
}

/**
 * Prints a configuration error the way an operator wants it: one `configuration error: …` line per
 * problem on stderr, no stack trace, then exits 1. Anything else is not ours to judge: false.
 */
export function exitOnConfigError(error: unknown): boolean {
  if (!(error instanceof ConfigError)) return false;
  for (const problem of error.problems) process.stderr.write(`configuration error: ${problem}\n`);
  process.exit(1);
}

/** Runs `load` (typically loadConfig and the checks a service adds); a ConfigError ends the process. */
export function configOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    exitOnConfigError(error);
    throw error;
  }
}

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine((value) => protocols.some((protocol) => value.startsWith(`${protocol}://`)), {
      message: `must start with ${protocols.map((protocol) => `${protocol}://`).join(' or ')}`,
    })
    .optional();

const environmentSchema = z.object({
  JUMBE_HOST: z.string().min(1).default('0.0.0.0'),
  JUMBE_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  JUMBE_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  JUMBE_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  JUMBE_DATA_DIR: z.string().min(1).default('./data'),
  JUMBE_DATABASE_URL: optionalUrl(['postgres', 'postgresql']),
  JUMBE_NATS_URL: optionalUrl(['nats', 'tls']),
  JUMBE_REDIS_URL: optionalUrl(['redis', 'rediss']),
  JUMBE_NETWORK: z.enum(['whatsapp', 'sandbox']).default('whatsapp'),
  JUMBE_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  JUMBE_ALLOW_PRIVATE_NETWORKS: flag.default(false),
  JUMBE_SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  JUMBE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  JUMBE_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  JUMBE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).optional(),
  JUMBE_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  JUMBE_WHATSAPP_VERSION: z
    .string()
    .regex(/^\d{1,10}\.\d{1,10}\.\d{1,10}$/, 'must be a WhatsApp Web version such as 2.3000.1023456789')
    .optional(),
  JUMBE_MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  JUMBE_MEDIA_DOWNLOADS: z.coerce.number().int().min(1).max(1_000).default(4),
  JUMBE_RESTORE_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(32),
  JUMBE_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1_000).default(10),
  JUMBE_CONNECT_SPACING_MS: z.coerce.number().int().min(0).max(60_000).default(250),
  JUMBE_SHARD_COUNT: z.coerce.number().int().min(1).max(MAX_SHARD_COUNT).default(DEFAULT_SHARD_COUNT),
  JUMBE_TRUST_PROXY: z
    .string()
    .trim()
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    )
    .refine((entries) => entries.every(isAddressOrCidr), {
      message: 'must be a comma-separated list of IP addresses or CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1)',
    })
    .optional(),
  JUMBE_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).default(256),
  JUMBE_HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  JUMBE_HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  JUMBE_HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  JUMBE_SHUTDOWN_DELAY_SECONDS: z.coerce.number().min(0).max(300).default(0),
  JUMBE_WHATSAPP_URL: z
    .string()
    .url()
    .regex(/^wss?:\/\//, 'must be a ws:// or wss:// address')
    .optional(),
  JUMBE_DEPLOYMENT: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be 1 to 32 lowercase letters, digits and "-"')
    .optional(),
  JUMBE_WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(DEFAULT_RETRY_BASE_MS),
  JUMBE_STALL_LIMIT_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30),
});

/** Keys of a config file: the same names as the environment; the environment wins. */
function readConfigFile(path: string | undefined): Record<string, string> {
  if (!path) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`JUMBE_CONFIG_FILE ${path}: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`JUMBE_CONFIG_FILE ${path}: expected a JSON object of JUMBE_* settings`);
  }
  return Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, String(value)]));
}

/** Reads and validates the configuration; a bad value stops the process with a precise message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): JumbeConfig {
  const merged = { ...readConfigFile(env['JUMBE_CONFIG_FILE']), ...withoutEmpty(env) };
  const result = environmentSchema.safeParse(merged);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(problems, `invalid configuration: ${problems.join('; ')}`);
  }
  const value = result.data;
  return {
    host: value.JUMBE_HOST,
    port: value.JUMBE_PORT,
    metricsPort: value.JUMBE_METRICS_PORT ?? null,
    metricsToken: value.JUMBE_METRICS_TOKEN ?? null,
    dataDir: value.JUMBE_DATA_DIR,
    databaseUrl: value.JUMBE_DATABASE_URL ?? null,
    natsUrl: value.JUMBE_NATS_URL ?? null,
    redisUrl: value.JUMBE_REDIS_URL ?? null,
    network: value.JUMBE_NETWORK,
    adminToken: value.JUMBE_ADMIN_TOKEN ?? null,
    allowPrivateNetworks: value.JUMBE_ALLOW_PRIVATE_NETWORKS,
    secretKey: value.JUMBE_SECRET_KEY ?? null,
    logLevel: value.JUMBE_LOG_LEVEL,
    bodyLimitBytes: value.JUMBE_BODY_LIMIT_BYTES,
    rateLimitPerMinute: value.JUMBE_RATE_LIMIT_PER_MINUTE ?? null,
    commandTimeoutMs: value.JUMBE_COMMAND_TIMEOUT_MS,
    restoreConcurrency: value.JUMBE_RESTORE_CONCURRENCY,
    databasePoolSize: value.JUMBE_DATABASE_POOL_SIZE,
    mediaMaxBytes: value.JUMBE_MEDIA_MAX_BYTES,
    mediaDownloads: value.JUMBE_MEDIA_DOWNLOADS,
    connectSpacingMs: value.JUMBE_CONNECT_SPACING_MS,
    shardCount: value.JUMBE_SHARD_COUNT,
    deployment: value.JUMBE_DEPLOYMENT ?? null,
    whatsappVersion: value.JUMBE_WHATSAPP_VERSION ?? null,
    trustProxy: value.JUMBE_TRUST_PROXY ?? [],
    maxConnectionsPerAddress: value.JUMBE_MAX_CONNECTIONS_PER_ADDRESS,
    httpHeadersTimeoutMs: value.JUMBE_HTTP_HEADERS_TIMEOUT_MS,
    httpRequestTimeoutMs: value.JUMBE_HTTP_REQUEST_TIMEOUT_MS,
    httpIdleTimeoutMs: value.JUMBE_HTTP_IDLE_TIMEOUT_MS,
    whatsappUrl: value.JUMBE_WHATSAPP_URL ?? null,
    shutdownDelayMs: Math.round(value.JUMBE_SHUTDOWN_DELAY_SECONDS * 1_000),
    webhookRetryBaseMs: value.JUMBE_WEBHOOK_RETRY_BASE_MS,
    leaseStallLimitMs: value.JUMBE_STALL_LIMIT_SECONDS * 1_000,
  };
}

/** `10.0.0.1`, `::1`, `10.0.0.0/8` or `fd00::/8`: what `JUMBE_TRUST_PROXY` accepts. */
function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || !address) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** An empty variable (`JUMBE_REDIS_URL=`) means "not set", as shells and compose files produce them. */
function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
    ),
  );
}

/** Production services need every external dependency; the all-in-one process does not. */
export function requireDistributedSettings(config: JumbeConfig, service: string): void {
  const missing = (
    [
      ['JUMBE_DATABASE_URL', config.databaseUrl],
      ['JUMBE_NATS_URL', config.natsUrl],
      ['JUMBE_REDIS_URL', config.redisUrl],
      ['JUMBE_SECRET_KEY', config.secretKey],
    ] as const
  )
    .filter(([, value]) => value === null)
    .map(([name]) => name);
  if (missing.length > 0) {
    throw new ConfigError(
      `${service} needs ${missing.join(', ')} (or run \`npm start\` for the all-in-one mode)`,
    );
  }
}
