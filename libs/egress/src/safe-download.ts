import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { EgressStatusError } from './egress-status-error';
import { EgressTooLargeError } from './egress-too-large-error';
import { exchange } from './exchange';
import type { HostResolver } from './host-resolver';

export interface SafeDownloadOptions {
  /** Larger files fail with EgressTooLargeError, from Content-Length or while streaming. */
  maxBytes: number;
  /** Total deadline for DNS, connect, TLS and the whole body. */
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  headers?: OutgoingHttpHeaders;
  /** Defaults to systemResolver; tests pass a fake. */
  resolver?: HostResolver;
}

export interface SafeDownloadResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The Content-Type header as sent, if any. */
  contentType: string | undefined;
  durationMs: number;
}

/**
 * GETs a media file from a customer-given URL. Only a 2xx with the whole body is a result; a 3xx
 * (never followed), 4xx or 5xx throws EgressStatusError; also throws EgressTooLargeError,
 * BlockedAddressError, EgressTimeoutError, EgressConnectionError and EgressInvalidUrlError.
 */
export async function safeDownload(url: string, options: SafeDownloadOptions): Promise<SafeDownloadResult> {
  const result = await exchange({
    url,
    method: 'GET',
    headers: { ...options.headers },
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    overflow: 'fail',
    allowPrivateNetworks: options.allowPrivateNetworks,
    resolver: options.resolver,
    beforeBody: (status, headers) => {
      if (status < 200 || status > 299) throw new EgressStatusError(status);
      // Refuse up front what announces itself as too big, without reading a byte of it.
      const length = Number(headers['content-length']);
      if (Number.isFinite(length) && length > options.maxBytes)
        throw new EgressTooLargeError(options.maxBytes);
    },
  });
  return {
    status: result.status,
    headers: result.headers,
    body: result.body,
    contentType: result.headers['content-type'],
    durationMs: result.durationMs,
  };
}
