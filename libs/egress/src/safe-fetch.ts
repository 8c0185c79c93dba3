import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { ConnectionPool } from './connection-pool';
import { exchange } from './exchange';
import type { HostResolver } from './host-resolver';

export interface SafeFetchOptions {
  /** Default GET. */
  method?: string;
  headers?: OutgoingHttpHeaders;
  /** Sent with a Content-Length (never chunked) unless the headers already set one. */
  body?: string | Uint8Array;
  /** Total deadline for DNS, connect, TLS and the whole response. Default 10 000 ms. */
  timeoutMs?: number;
  /** Bytes of response body kept; the rest is not read. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Default false: non-public addresses are refused, at connect time. */
  allowPrivateNetworks?: boolean;
  /** Defaults to systemResolver; tests pass a fake. */
  resolver?: HostResolver;
  /**
   * Kept-alive connections to use, built for the same policy (allowPrivateNetworks and resolver;
   * anything else is refused). Without it, each request has a connection of its own.
   */
  pool?: ConnectionPool;
  /** Whose request this is (the account): a pooled connection is reused only under the same key. */
  poolKey?: string;
  /** Redirects are never followed (CONTRACT §6: a 3xx is the answer); present only to say so. */
  followRedirects?: false;
}

export interface SafeFetchResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** At most maxResponseBytes: the first bytes of the body. */
  body: Buffer;
  /** The body went on past maxResponseBytes; the connection was closed instead of reading on. */
  truncated: boolean;
  durationMs: number;
}

/**
 * A request to a customer-given URL (webhook deliveries): resolves with any HTTP status, 3xx
 * included, and throws BlockedAddressError, EgressTimeoutError, EgressConnectionError or
 * EgressInvalidUrlError, each with a message fit for a delivery record.
 */
export async function safeFetch(url: string, options: SafeFetchOptions = {}): Promise<SafeFetchResponse> {
  const headers: OutgoingHttpHeaders = { ...options.headers };
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  const hasLength = Object.keys(headers).some((name) => name.toLowerCase() === 'content-length');
  if (body !== undefined && !hasLength) headers['content-length'] = body.length;

  return exchange({
    url,
    method: options.method ?? 'GET',
    headers,
    body,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: options.maxResponseBytes ?? 1024 * 1024,
    overflow: 'truncate',
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    resolver: options.resolver,
    pool: options.pool,
    poolKey: options.poolKey,
  });
}
