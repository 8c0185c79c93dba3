import { ApiError } from '@jumbe/contracts';
import type { FastifyInstance } from 'fastify';
import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

/** The route that accepts WebSocket upgrades; every other path answers 404 to one. */
export const EVENTS_PATH = '/api/v1/events';
/** The subprotocol a stream speaks, which the server selects. */
export const EVENTS_PROTOCOL = 'jumbe.v1';
/**
 * A browser's WebSocket cannot set headers, so it may offer its key as a subprotocol
 * (`jumbe.key.<key>`) beside `jumbe.v1`: never in the URL, which ends up in logs.
 */
const KEY_PROTOCOL_PREFIX = 'jumbe.key.';

/** A WebSocket handshake waiting for its route to accept it (after authentication). */
export interface PendingUpgrade {
  accept(): Promise<WebSocket>;
}

const pending = new WeakMap<IncomingMessage, PendingUpgrade>();

/** The handshake a request brought, if it is a WebSocket upgrade. */
export function pendingUpgrade(request: IncomingMessage): PendingUpgrade | undefined {
  return pending.get(request);
}

/**
 * Routes WebSocket handshakes to `GET /api/v1/events` through the normal request pipeline (the
 * key check, quota, rate and scope, as for any route); the route accepts the upgrade once it has
 * admitted the caller. A refusal is an ordinary HTTP answer in the error envelope, then the
 * connection is closed.
 */
export function installWebSocketUpgrades(fastify: FastifyInstance): WebSocketServer {
  const server = new WebSocketServer({
    noServer: true,
    // A stream only sends: what a client says is ignored, so it may not say much.
    maxPayload: 4 * 1024,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has(EVENTS_PROTOCOL) ? EVENTS_PROTOCOL : false),
  });
  fastify.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== EVENTS_PATH) {
      return refuseRaw(
        socket,
        new ApiError('not_found', `No WebSocket at ${path?.slice(0, 200)}; streams are at ${EVENTS_PATH}.`),
      );
    }
    try {
      adoptProtocolKey(request);
    } catch (error) {
      return refuseRaw(socket, error as ApiError);
    }
    let upgraded = false;
    const response = new ServerResponse(request);
    response.assignSocket(socket as never);
    // A refusal answered through the pipeline: the connection carries nothing after it.
    response.on('finish', () => {
      if (!upgraded) socket.end();
    });
    pending.set(request, {
      accept: () =>
        new Promise<WebSocket>((resolve) => {
          upgraded = true;
          response.detachSocket(socket as never);
          server.handleUpgrade(request, socket, head, resolve);
        }),
    });
    fastify.routing(request, response);
  });
  fastify.addHook('preClose', (done) => {
    for (const client of server.clients) client.terminate();
    server.close();
    done();
  });
  return server;
}

/**
 * A key offered as `jumbe.key.<key>` becomes the request's `x-api-key` (which logs redact), and
 * leaves the subprotocol list, so it is neither logged nor echoed back. Two different keys (the
 * header's and the subprotocol's) are refused: which account is meant is unclear.
 */
function adoptProtocolKey(request: IncomingMessage): void {
  const offered = request.headers['sec-websocket-protocol'];
  if (typeof offered !== 'string') return;
  const protocols = offered.split(',').map((protocol) => protocol.trim());
  const keys = protocols.filter((protocol) => protocol.startsWith(KEY_PROTOCOL_PREFIX));
  if (keys.length === 0) return;
  const key = keys[0]?.slice(KEY_PROTOCOL_PREFIX.length) ?? '';
  const header = request.headers['x-api-key'];
  if (keys.length > 1 || (typeof header === 'string' && header.trim() !== key)) {
    throw new ApiError('unauthorized', 'Two different API keys were presented; send one.');
  }
  request.headers['x-api-key'] = key;
  const rest = protocols.filter((protocol) => !protocol.startsWith(KEY_PROTOCOL_PREFIX));
  if (rest.length > 0) request.headers['sec-websocket-protocol'] = rest.join(', ');
  else delete request.headers['sec-websocket-protocol'];
}

/** An HTTP answer in the error envelope written straight to the socket, which is then closed. */
function refuseRaw(socket: Duplex, error: ApiError): void {
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.status} ${error.status === 404 ? 'Not Found' : 'Unauthorized'}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}
