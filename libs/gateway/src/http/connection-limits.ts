import type { JumbeConfig } from '@jumbe/config';
import { ApiError } from '@jumbe/contracts';
import type { Server, ServerOptions } from 'node:http';
import { BlockList, isIP, type Socket } from 'node:net';
import type { Logger } from 'pino';

/** Longest path parameter the router accepts; longer ones reach the route and get its own answer. */
export const MAX_PARAM_LENGTH = 8_192;

/**
 * Fastify and Node options that stop a slow or idle client from holding a connection: headers
 * within `httpHeadersTimeoutMs`, the whole request within `httpRequestTimeoutMs`, and no more than
 * `httpIdleTimeoutMs` without traffic. Node checks the first two on a timer, which we tighten so a
 * trickling client is cut off close to its deadline rather than up to 30 s later.
 */
export function connectionTimeoutOptions(config: JumbeConfig): {
  connectionTimeout: number;
  keepAliveTimeout: number;
  requestTimeout: number;
  http: ServerOptions;
} {
  return {
    connectionTimeout: config.httpIdleTimeoutMs,
    // Shorter than the headers timeout, which Node also applies to a kept-alive connection
    // waiting for its next request: the client must see the connection end by keep-alive first.
    keepAliveTimeout: Math.min(5_000, Math.floor(config.httpHeadersTimeoutMs / 2), config.httpIdleTimeoutMs),
    requestTimeout: config.httpRequestTimeoutMs,
    http: {
      headersTimeout: Math.min(config.httpHeadersTimeoutMs, config.httpRequestTimeoutMs),
      requestTimeout: config.httpRequestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.httpHeadersTimeoutMs),
      // Node would answer a missing Host itself, with an empty 400: installProtocolRefusals does.
      requireHostHeader: false,
    },
  };
}

/** The proxies `JUMBE_TRUST_PROXY` names, as a set addresses can be checked against. */
export function trustedProxies(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/**
 * Caps the connections one client address holds at once: the next one is closed as soon as it
 * opens, before any byte is read. Trusted proxies are exempt (every client arrives through them).
 */
export function capConnectionsPerAddress(
  server: Server,
  limit: number,
  proxies: BlockList,
  logger: Logger,
): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || isTrusted(proxies, address)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > limit) {
      logger.warn({ clientAddress: address, limit }, 'connection refused: too many from one address');
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

function isTrusted(proxies: BlockList, address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  if (mapped) return proxies.check(mapped, 'ipv4');
  return proxies.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Node's parser errors (bad chunked encoding, conflicting Content-Length, headers over the limit)
 * happen before any route exists; they are answered here, in the contract's envelope, and the
 * connection closed. A client that ran out of time or hung up gets nothing: it is not listening.
 */
export function clientErrorHandler(logger: Logger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    logger.debug({ code: error.code, clientAddress: socket.remoteAddress }, 'client error');
    if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || socket.destroyed) {
      socket.destroy();
      return;
    }
    const apiError =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('validation_error', 'Request headers are larger than the server accepts (16 KiB).')
        : new ApiError('validation_error', `Malformed HTTP request (${error.code ?? 'parse error'}).`);
    if (socket.writable) {
      const body = JSON.stringify(apiError.toBody());
      socket.write(
        `HTTP/1.1 ${apiError.status} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
