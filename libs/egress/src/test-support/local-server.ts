import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A throwaway HTTP server on loopback: the only kind of peer these tests ever talk to. */
export interface LocalServer {
  /** `http://127.0.0.1:<port>` (or `http://[::1]:<port>`), no trailing slash. */
  origin: string;
  port: number;
  /** TCP connections accepted so far: 0 proves a guard refused before connecting. */
  connections: number;
  /** Requests received so far. */
  requests: http.IncomingMessage[];
  close(): Promise<void>;
}

export async function startLocalServer(
  handler: http.RequestListener,
  host: '127.0.0.1' | '::1' = '127.0.0.1',
): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  const state: LocalServer = {
    origin: '',
    port: 0,
    connections: 0,
    requests: [],
    close: async () => {
      // Hung handlers keep sockets open; a test must not wait for them.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((request, response) => {
    state.requests.push(request);
    handler(request, response);
  });
  server.on('connection', (socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  state.port = port;
  state.origin = host === '::1' ? `http://[::1]:${port}` : `http://127.0.0.1:${port}`;
  return state;
}

/** A loopback port with nothing listening on it (bound, then released). */
export async function unusedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
