import { ApiError } from '@jumbe/contracts';
import type { FastifyInstance } from 'fastify';
import { type IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

/** The route that accepts WebSocket upgrades; any other answers a handshake as a plain request. */
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
 * connection is closed. Any other request asking to upgrade is answered as a plain request.
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
    // With an 'upgrade' listener Node hands every request that asks to upgrade (h2c from
    // `curl --http2` too) here, detached from its parser: one without a body is answered as the
    // plain request it also is; a body could not be read any more, so that one is refused.
    if (hasBody(request)) {
      return refuseRaw(
        socket,
        new ApiError(
          'validation_error',
          'A request with a body cannot ask to upgrade its connection; send it without the Upgrade header.',
        ),
      );
    }
    if (isEventStreamHandshake(request)) {
      try {
        adoptProtocolKey(request);
      } catch (error) {
        return refuseRaw(socket, error as ApiError);
      }
    }
    let upgraded = false;
    const response = new ServerResponse(request);
    response.assignSocket(socket as never);
    // Answered through the pipeline (a refusal, or a route that does not upgrade): nothing follows.
    response.on('finish', () => {
      if (!upgraded) socket.end();
    });
    if (isEventStreamHandshake(request)) {
      pending.set(request, {
        accept: () =>
          new Promise<WebSocket>((resolve, reject) => {
            upgraded = true;
            response.detachSocket(socket as never);
            // ws answers a malformed handshake (bad key or version) itself and closes the socket.
            const failed = () => reject(new Error('the WebSocket handshake failed'));
            socket.once('close', failed);
            server.handleUpgrade(request, socket, head, (webSocket) => {
              socket.off('close', failed);
              resolve(webSocket);
            });
          }),
      });
    }
    fastify.routing(request, response);
  });
  fastify.addHook('preClose', (done) => {
    for (const client of server.clients) client.terminate();
    server.close();
    done();
  });
  return server;
}

/** A WebSocket handshake to the event stream route (any other upgrade is answered as a plain request). */
function isEventStreamHandshake(request: IncomingMessage): boolean {
  const path = (request.url ?? '').split('?')[0];
  return (
    request.method === 'GET' && path === EVENTS_PATH && request.headers.upgrade?.toLowerCase() === 'websocket'
  );
}

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
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
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}
