import type { BusHeaders, BusMessage } from '@jumbe/messaging';
import type { Logger } from 'pino';

/**
 * The bus header a command carries the X-Request-Id of the API request that sent it in, so the
 * worker's or dispatcher's log lines and records for the command name the same request. Passed
 * explicitly, not through AsyncLocalStorage: on Node 20 that would slow every promise of the process.
 */
export const REQUEST_ID_HEADER = 'Jumbe-Request-Id';

/** The headers that carry `requestId` with a command (none without one). */
export function requestIdHeaders(requestId: string | undefined): BusHeaders | undefined {
  return requestId === undefined ? undefined : { [REQUEST_ID_HEADER]: requestId };
}

/** The request id a command arrived with, if any. */
export function requestIdOfMessage(message: BusMessage | undefined): string | undefined {
  return message?.headers[REQUEST_ID_HEADER];
}

/** `logger`, with the command's request id on every line when it came with one. */
export function loggerForMessage(logger: Logger, message: BusMessage | undefined): Logger {
  const requestId = requestIdOfMessage(message);
  return requestId === undefined ? logger : logger.child({ requestId });
}
