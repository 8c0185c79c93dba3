import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
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
 * Built on node:http rather than fetch because only there do we own the `lookup` hook, the socket
 * (destroyed the moment we stop reading) and redirect handling (there is none: 3xx is returned).
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

  if (plan.pool === undefined) return attempt(plan, url, false, started);
  // The pool's agents force its own connect-time guard on new connections: it must be this policy.
  const { pool } = plan;
  if (
    pool.allowPrivateNetworks !== plan.allowPrivateNetworks ||
    (plan.resolver ?? pool.resolver) !== pool.resolver
  ) {
    throw new TypeError('exchange: the connection pool was built for another address policy');
  }
  try {
    return await attempt(plan, url, pool.agentFor(url, plan.poolKey ?? ''), started);
  } catch (error) {
    if (!(error instanceof ReusedConnectionClosed)) throw error;
    // The server closed the kept-alive connection as it was being reused, before answering: the
    // request never reached it, so it goes once more on a connection of its own.
    return attempt({ ...plan, resolver: pool.resolver }, url, false, started);
  }
}

/** A reused connection failed before any answer: the server had closed it while it sat idle. */
class ReusedConnectionClosed extends Error {}

function attempt(
  plan: ExchangePlan,
  url: URL,
  agent: http.Agent | false,
  started: number,
): Promise<ExchangeResult> {
  const hostLabel = url.host;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<ExchangeResult>((resolve, reject) => {
    let settled = false;
    let answered = false;
    const chunks: Buffer[] = [];
    let received = 0;

    const request = transport.request(url, {
      method: plan.method,
      headers: plan.headers,
      // Without a pool, a fresh socket per exchange. A pooled connection is handed back only after
      // its response was read to the end; on any other outcome it is destroyed below.
      agent,
      lookup: createGuardedLookup({
        allowPrivateNetworks: plan.allowPrivateNetworks,
        resolver: plan.resolver,
      }),
    });

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
      request.destroy();
      if (request.reusedSocket && !answered && isClosedConnection(error)) {
        reject(new ReusedConnectionClosed());
      } else {
        reject(toEgressError(error, hostLabel, answered));
      }
    }

    function succeed(status: number, headers: IncomingHttpHeaders, truncated: boolean): void {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      // Stop reading for good: the rest of the body is never pulled off the wire.
      if (truncated) request.destroy();
      resolve({
        status,
        headers,
        body: Buffer.concat(chunks),
        truncated,
        durationMs: Math.round(performance.now() - started),
      });
    }

    request.on('error', fail);
    request.on('response', (response) => {
      answered = true;
      const status = response.statusCode ?? 0;
      response.on('error', fail);
      try {
        plan.beforeBody?.(status, response.headers);
      } catch (error) {
        fail(error);
        return;
      }
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = plan.maxBytes - received;
        received += chunk.length;
        if (chunk.length <= room) {
          chunks.push(chunk);
        } else if (plan.overflow === 'fail') {
          fail(new EgressTooLargeError(plan.maxBytes));
        } else {
          chunks.push(chunk.subarray(0, room));
          succeed(status, response.headers, true);
        }
      });
      response.on('end', () => succeed(status, response.headers, false));
      // A peer that drops the connection mid-body: not every Node version reports it as 'error'.
      response.on('close', () => {
        if (!response.complete) fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      });
    });

    request.end(plan.body);
  });
}

function isClosedConnection(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}
