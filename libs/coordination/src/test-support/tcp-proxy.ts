import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * Test-only TCP forwarder in front of a real server, so tests can simulate an outage (`stop`),
 * a recovery (`start` again on the same port) or a server that accepts but never answers
 * (`blackhole`) without touching the shared server itself.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private blackholed = false;
  private listenPort = 0;

  /** `latencyMs` delays what clients send, to make "did X reach the server before Y" deterministic. */
  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    private readonly latencyMs = 0,
  ) {}

  get port(): number {
    return this.listenPort;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.listenPort}`;
  }

  async start(): Promise<void> {
    this.blackholed = false;
    const server = createServer((client) => this.forward(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listenPort, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address');
    this.listenPort = address.port;
    this.server = server;
  }

  /** Drops every connection and stops listening: to clients, the server is down. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Keeps connections open but forwards nothing any more: to clients, the server hangs. */
  blackhole(): void {
    this.blackholed = true;
  }

  private forward(client: Socket): void {
    const upstream = connect(this.targetPort, this.targetHost);
    this.sockets.add(client);
    this.sockets.add(upstream);
    client.on('data', (chunk) => {
      if (this.blackholed) return;
      if (this.latencyMs === 0) upstream.write(chunk);
      // Equal delays fire in order, so the byte stream stays intact.
      else setTimeout(() => upstream.destroyed || upstream.write(chunk), this.latencyMs);
    });
    upstream.on('data', (chunk) => {
      if (!this.blackholed) client.write(chunk);
    });
    const close = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}
