import { AsyncLocalStorage } from 'node:async_hooks';

/** The header a command carries its originating request id in, across the bus. */
export const REQUEST_ID_HEADER = 'Jumbe-Request-Id';

interface RequestContext {
  requestId: string;
}

/**
 * The request a piece of work is done for, wherever it runs: set for an HTTP request by the
 * gateway, restored around a bus command's handler in the worker and the dispatcher. It follows
 * the work through awaits and callbacks (AsyncLocalStorage), so no signature has to pass it on.
 */
const storage = new AsyncLocalStorage<RequestContext>();

/** The request id of the work in progress, if it was started by a request. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Runs `work` (and all it starts) as done for `requestId`; without an id, as it is. */
export function withRequestId<T>(requestId: string | undefined, work: () => T): T {
  return requestId === undefined ? work() : storage.run({ requestId }, work);
}

/** Fields every log line written for a request carries (a pino `mixin`). */
export function requestLogFields(): { requestId?: string } {
  const requestId = currentRequestId();
  return requestId === undefined ? {} : { requestId };
}
