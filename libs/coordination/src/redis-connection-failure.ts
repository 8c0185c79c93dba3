import { CoordinationUnavailableError } from './coordination-unavailable-error';

// Messages ioredis uses when it refuses or abandons a command because the connection is not usable.
const CLIENT_SIDE_MESSAGES = [
  'Connection is closed',
  "Stream isn't writeable",
  'enableOfflineQueue options is false',
  'Command timed out',
  'Reached the max retries per request limit',
];

// Socket errors: the server is down, unreachable or went away mid-command.
const SOCKET_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

// Redis replies that mean "this server cannot serve you right now" (restart, failover, cluster
// reconfiguration) rather than "your command is wrong".
const TRANSIENT_REPLY_PREFIXES = ['LOADING', 'MASTERDOWN', 'CLUSTERDOWN', 'TRYAGAIN', 'READONLY'];

/** True when `error` says Redis is unreachable or temporarily unable to serve, not that the command is wrong. */
export function isRedisConnectionFailure(error: unknown): boolean {
  if (error instanceof CoordinationUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_ERROR_CODES.has(code)) return true;
  if (CLIENT_SIDE_MESSAGES.some((text) => error.message.includes(text))) return true;
  if (TRANSIENT_REPLY_PREFIXES.some((prefix) => error.message.startsWith(prefix))) return true;
  return [...SOCKET_ERROR_CODES].some((socketCode) => error.message.includes(socketCode));
}

/**
 * Runs one Redis operation and turns connection failures into CoordinationUnavailableError, so
 * callers can answer 503 without knowing ioredis' error vocabulary. Other errors (bugs, bad
 * arguments) pass through unchanged.
 */
export async function withRedisFailuresTranslated<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CoordinationUnavailableError) throw error;
    if (isRedisConnectionFailure(error)) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new CoordinationUnavailableError(`Redis unavailable during ${operation}: ${reason}`, {
        cause: error,
      });
    }
    throw error;
  }
}
