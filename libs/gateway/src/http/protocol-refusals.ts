import { ApiError } from '@jumbe/contracts';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

/**
 * What Node's HTTP server answers by itself, before Fastify sees a request, with an empty body or
 * none at all: HTTP/1.1 without `Host` (400), an `Expect` other than `100-continue` (417), a
 * `CONNECT` (connection dropped). Each is taken over here and answered in the error envelope, with
 * the connection closed. And `Expect: 100-continue` no longer gets `100 Continue` before the key is
 * checked: the client is told to send its body only once the server will read it.
 *
 * Pair with `requireHostHeader: false` in the server options (see connectionTimeoutOptions).
 */
export function installProtocolRefusals(fastify: FastifyInstance, logger: Logger): void {
  const server: Server = fastify.server;
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    logger.debug({ expect: request.headers.expect?.slice(0, 100) }, 'request refused: unsupported Expect');
    answer(
      response,
      new ApiError('validation_error', 'Unsupported Expect header: only "100-continue" is understood.'),
    );
  });
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    logger.debug({ clientAddress: request.socket.remoteAddress }, 'request refused: CONNECT');
    writeRaw(socket, new ApiError('not_found', 'CONNECT is not served: Jumbe is not a proxy.'));
  });
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    AWAITING_CONTINUE.add(request);
    server.emit('request', request, response);
  });
  // First of the global hooks: before authentication, before any route's own.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.raw.httpVersion !== '1.1' || request.headers.host !== undefined) return done();
    const error = new ApiError('validation_error', 'An HTTP/1.1 request needs a Host header.');
    void reply.header('connection', 'close').status(error.status).send(error.toBody());
  });
  // After every onRequest hook (the key check among them) and before the body is read.
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    if (AWAITING_CONTINUE.delete(request.raw) && !reply.raw.headersSent) reply.raw.writeContinue();
    done(null, payload);
  });
}

/** Requests whose client waits for `100 Continue` before sending its body. */
const AWAITING_CONTINUE = new WeakSet<IncomingMessage>();

function answer(response: ServerResponse, error: ApiError): void {
  const body = JSON.stringify(error.toBody());
  response.writeHead(error.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}

/** Writes `error` as a whole HTTP/1.1 answer on a socket no `ServerResponse` owns, and closes it. */
function writeRaw(socket: Duplex, error: ApiError, reason = statusText(error.status)): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(error.toBody());
  // Closed once the answer is flushed; `destroy` alone could drop it unsent.
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

function statusText(status: number): string {
  return status === 404 ? 'Not Found' : 'Bad Request';
}
