import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { Client, type Dispatcher } from 'undici';
import { BlockedAddressError } from './blocked-address-error';
import { checkUrlShape } from './check-url-shape';
import { classifyAddress } from './classify-address';
import type { ConnectionPool } from './connection-pool';
import { createGuardedLookup } from './create-guarded-lookup';
import { EgressInvalidUrlError } from './egress-invalid-url-error';
import { EgressTimeoutError } from './egress-timeout-error';
import { EgressTooLargeError } from './egress-too-large-error';
import type { HostResolver } from './host-resolver';
import { toEgressError } from './to-egress-error';
import { urlHost } from './url-host';

/** One request/response with a customer-given URL, as safeFetch and safeDownload need it. */
export interface ExchangePlan {
  url: string;
  method: string;
  headers: OutgoingHttpHeaders;
  body?: Buffer;
  timeoutMs: number;
  maxBytes: number;
  /** Past maxBytes: keep the first maxBytes and report `truncated` (fetch), or fail (download). */
  overflow: 'truncate' | 'fail';
  allowPrivateNetworks: boolean;
  resolver?: HostResolver;
  /** Kept-alive connections to use (its policy must be this plan's); without it, a fresh socket. */
  pool?: ConnectionPool;
  /** Whose connections these are: a pooled connection is only reused under the same key. */
  poolKey?: string;
  /** Runs when the headers arrive; throwing an EgressError ends the exchange before the body is read. */
  beforeBody?: (status: number, headers: IncomingHttpHeaders) => void;
}

export interface ExchangeResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
  durationMs: number;
}

/**
 * One HTTP exchange through the connect-time guard, under one deadline, reading at most maxBytes.
 * Built on undici's dispatcher rather than fetch because only there do we own the connector's
 * `lookup`, the connection (destroyed the moment we stop reading) and redirect handling (there is
 * none: 3xx is returned).
 */
export async function exchange(plan: ExchangePlan): Promise<ExchangeResult> {
  const started = performance.now();
  const shape = checkUrlShape(plan.url);
  if (!shape.ok) throw new EgressInvalidUrlError(shape.reason);
  const { url } = shape;

  // Node connects to IP literals without calling `lookup`, so the guard cannot see them: check here.
  if (!plan.allowPrivateNetworks) {
    const host = urlHost(url);
    const kind = classifyAddress(host);
    if (kind !== null && kind !== 'public') throw new BlockedAddressError(host, host, kind);
  }

  if (plan.pool === undefined) return attemptAlone(plan, url, started);
  // The pool's connections are opened through its own connect-time guard: it must be this policy.
  const { pool } = plan;
  if (
    pool.allowPrivateNetworks !== plan.allowPrivateNetworks ||
    (plan.resolver ?? pool.resolver) !== pool.resolver
  ) {
    throw new TypeError('exchange: the connection pool was built for another address policy');
  }
  try {
    return await attempt(plan, url, pool.dispatcherFor(url, plan.poolKey ?? ''), started, false);
  } catch (error) {
    if (!(error instanceof ReusedConnectionClosed)) throw error;
    // The server closed the kept-alive connection as it was being reused, before answering: the
    // request never reached it, so it goes once more on a connection of its own.
    return attemptAlone({ ...plan, resolver: pool.resolver }, url, started);
  }
}

/** A reused connection failed before any answer: the server had closed it while it sat idle. */
class ReusedConnectionClosed extends Error {}

/** On a connection of its own, closed when the exchange ends. */
async function attemptAlone(plan: ExchangePlan, url: URL, started: number): Promise<ExchangeResult> {
  const client = new Client(url.origin, {
    connect: {
      lookup: createGuardedLookup({
        allowPrivateNetworks: plan.allowPrivateNetworks,
        resolver: plan.resolver,
      }),
    },
  });
  try {
    return await attempt(plan, url, client, started, true);
  } finally {
    void client.destroy().catch(() => undefined);
  }
}

function attempt(
  plan: ExchangePlan,
  url: URL,
  dispatcher: Dispatcher,
  started: number,
  alone: boolean,
): Promise<ExchangeResult> {
  const hostLabel = url.host;
  return new Promise<ExchangeResult>((resolve, reject) => {
    let settled = false;
    let answered = false;
    let controller: Dispatcher.DispatchController | null = null;
    let status = 0;
    let responseHeaders: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let received = 0;

    // One deadline for DNS, connect, TLS, headers and body alike (a retry included): a slow
    // trickle cannot outlast it.
    const deadline = setTimeout(
      () => fail(new EgressTimeoutError(plan.timeoutMs)),
      Math.max(0, plan.timeoutMs - (performance.now() - started)),
    );

    function fail(error: unknown): void {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      // Aborting a request on its connection destroys the connection: it is never pooled again.
      controller?.abort(ABANDONED);
      if (!alone && !answered && wasReusedAndClosed(error)) {
        reject(new ReusedConnectionClosed());
      } else if (isUndiciTimeout(error)) {
        // Only ever past our deadline (see the slack): the same timeout, told the same way.
        reject(new EgressTimeoutError(plan.timeoutMs));
      } else {
        reject(toEgressError(error, hostLabel, answered));
      }
    }

    function succeed(truncated: boolean): void {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      // Stop reading for good: the rest of the body is never pulled off the wire.
      if (truncated) controller?.abort(ABANDONED);
      resolve({
        status,
        headers: responseHeaders,
        body: Buffer.concat(chunks),
        truncated,
        durationMs: Math.round(performance.now() - started),
      });
    }

    dispatcher.dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: plan.method,
        headers: undiciHeaders(plan.headers),
        body: plan.body,
        // Our own deadline covers these; undici's defaults (minutes) must not outlast it, and its
        // own must not beat it: undici counts timeouts over a second on a coarse clock that can
        // expire one by up to half a second early (CI once recorded a hanging receiver's
        // delivery as UND_ERR_HEADERS_TIMEOUT instead of our `timed out after 10000 ms`).
        headersTimeout: plan.timeoutMs + UNDICI_TIMEOUT_SLACK_MS,
        bodyTimeout: plan.timeoutMs + UNDICI_TIMEOUT_SLACK_MS,
        // A connection of its own is closed after this exchange: say so to the server.
        reset: alone,
      },
      {
        onRequestStart(started) {
          controller = started;
          // The deadline passed while the request waited for a connection.
          if (settled) started.abort(ABANDONED);
        },
        onResponseStart(_, statusCode, headers) {
          if (statusCode < 200 || settled) return; // 1xx: informational, the answer follows
          answered = true;
          status = statusCode;
          responseHeaders = headers;
          try {
            plan.beforeBody?.(statusCode, headers);
          } catch (error) {
            fail(error);
          }
        },
        onResponseData(_, chunk) {
          if (settled) return;
          const room = plan.maxBytes - received;
          received += chunk.length;
          if (chunk.length <= room) {
            chunks.push(chunk);
          } else if (plan.overflow === 'fail') {
            fail(new EgressTooLargeError(plan.maxBytes));
          } else {
            chunks.push(chunk.subarray(0, room));
            succeed(true);
          }
        },
        onResponseEnd() {
          succeed(false);
        },
        onResponseError(_, error) {
          fail(error);
        },
      },
    );
  });
}

/** How much later than our deadline undici's own header and body timeouts are set. */
const UNDICI_TIMEOUT_SLACK_MS = 1_000;

function isUndiciTimeout(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

/** Why we abort a request we stopped caring about; never reported (the exchange has settled). */
const ABANDONED = new Error('exchange settled');

/** undici takes header values as strings (a Content-Length given as a number included). */
function undiciHeaders(headers: OutgoingHttpHeaders): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    result[name] = typeof value === 'number' ? String(value) : value;
  }
  return result;
}

/**
 * The connection closed before any answer, and it had carried an earlier exchange (it had read
 * bytes before this request): a kept-alive connection the server closed while it sat idle.
 */
function wasReusedAndClosed(error: unknown): boolean {
  const failure = error as { code?: string; socket?: { bytesRead?: number } } | undefined;
  return failure?.code === 'UND_ERR_SOCKET' && (failure.socket?.bytesRead ?? 0) > 0;
}
