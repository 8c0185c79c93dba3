import type { IncomingMessage } from 'node:http';

/** How long a refused client may go on sending what it had started before it is cut off. */
export const LINGER_MS = 5_000;

/**
 * Closes a connection answered `Connection: close` the way nginx's lingering close does: the answer
 * is sent and the sending side shut (FIN), then whatever the client is still writing is discarded
 * (never buffered: Node's parser drops a dumped request's body) until its request ends or
 * `LINGER_MS` passes, and only then is the socket destroyed.
 *
 * Why: Node destroys such a socket as soon as the answer is written. With the client's body still
 * arriving, the kernel answers it with a reset, and a client that is still writing (any HTTP client
 * that sends the body without waiting for `100 Continue`) sees `EPIPE` or `ECONNRESET` instead of
 * its 401. Node calls `socket.destroySoon()` for exactly this close, so it is replaced for this
 * socket alone.
 */
export function lingerAfterAnswer(request: IncomingMessage): void {
  const socket = request.socket;
  if (!socket || socket.destroyed) return;
  socket.destroySoon = () => {
    socket.end();
    const cut = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(cut, LINGER_MS);
    timer.unref();
    if (request.complete) return cut();
    request.once('end', cut);
    request.once('aborted', cut);
    request.once('error', cut);
    socket.once('close', () => clearTimeout(timer));
  };
}
