import Redis from 'ioredis';
import type { CoordinationLogger } from './coordination-logger';

/** Longest pause between reconnection attempts: Redis coming back is noticed within ~2 s. */
export const REDIS_MAX_RECONNECT_DELAY_MS = 2_000;

/** How long one command may take before the request path gives up on it (and answers 503). */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/** Exponential backoff from 100 ms, capped, forever: the service heals itself when Redis returns. */
export function redisReconnectDelay(attempt: number): number {
  return Math.min(100 * 2 ** Math.max(0, attempt - 1), REDIS_MAX_RECONNECT_DELAY_MS);
}

/**
 * The options of every client createRedisClient makes, but the reconnection strategy (a function,
 * which cannot cross to a worker thread): the lease upkeep thread builds its own connection from
 * exactly these, adding `redisReconnectDelay`'s backoff capped at REDIS_MAX_RECONNECT_DELAY_MS.
 *
 * While Redis is down, commands fail at once (no offline queue, at most one retry of an in-flight
 * command) so the gateway answers 503 instead of piling up requests, and the connection keeps
 * retrying in the background. `name` is set as the Redis CLIENT name, which makes connections
 * identifiable in CLIENT LIST.
 */
export function redisClientOptions(
  name: string,
  /** Prefixed to every key (scripts' KEYS included), so deployments can share one Redis. */
  keyPrefix?: string,
): RedisClientOptions {
  return {
    connectionName: name,
    ...(keyPrefix ? { keyPrefix } : {}),
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: REDIS_MAX_RECONNECT_DELAY_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // disconnect() waits this long for the socket to close before destroying it. ioredis arms
    // that timer even when the socket is already gone (closing while Redis is down) and never
    // clears it, so a short value keeps shutdown from hanging on it.
    disconnectTimeout: 300,
  };
}

/** What redisClientOptions gives: plain data, so it can be handed to a worker thread. */
export interface RedisClientOptions {
  connectionName: string;
  keyPrefix?: string;
  lazyConnect: boolean;
  enableOfflineQueue: boolean;
  maxRetriesPerRequest: number;
  connectTimeout: number;
  commandTimeout: number;
  disconnectTimeout: number;
}

/**
 * An ioredis client tuned for the HTTP request path (redisClientOptions), reconnecting forever
 * with a capped backoff. Connection errors go to `logger` (deduplicated: one line per distinct
 * failure, one when the connection is ready again) instead of becoming unhandled 'error' events.
 *
 * `autoPipelining`: the commands issued in one turn of the event loop leave in one write (ioredis
 * flushes them with `setImmediate`), instead of one socket write each. On the send path a write
 * per command was the largest single cost of the quota check and the sandbox's outbox (11% of a
 * gateway's busy time, 21% of a worker's). Each command stays what it was (a script is still
 * atomic, replies come back in order), but a `multi()` or explicit `pipeline()` leaves at once,
 * ahead of commands still waiting for the flush: a client made with it serves only stores that
 * use neither.
 */
export function createRedisClient(
  url: string,
  name: string,
  logger?: CoordinationLogger,
  /** Prefixed to every key (scripts' KEYS included), so deployments can share one Redis. */
  keyPrefix?: string,
  { autoPipelining = false }: { autoPipelining?: boolean } = {},
): Redis {
  const client = new Redis(url, {
    ...redisClientOptions(name, keyPrefix),
    retryStrategy: redisReconnectDelay,
    enableAutoPipelining: autoPipelining,
  });

  // A Redis outage produces one 'error' per reconnection attempt; log changes, not repetitions.
  let lastReported: string | undefined;
  client.on('error', (error: Error) => {
    if (error.message === lastReported) return;
    lastReported = error.message;
    logger?.(`redis ${name}: ${error.message}`, error);
  });
  client.on('ready', () => {
    if (lastReported === undefined) return;
    lastReported = undefined;
    logger?.(`redis ${name}: connection ready again`);
  });
  return client;
}
