import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * Test-only TCP forwarder in front of the real NATS server, so tests can simulate an outage
 * (`stop`), a recovery (`start` again on the same port) or a server that accepts but never answers
 * (`blackhole`) without touching the shared server. (libs/coordination has its own copy: test
 * helpers are not part of either lib's public API.)
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private blackholed = false;
  private listenPort = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  get port(): number {
    return this.listenPort;
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

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  blackhole(): void {
    this.blackholed = true;
  }

  private forward(client: Socket): void {
    const upstream = connect(this.targetPort, this.targetHost);
    this.sockets.add(client);
    this.sockets.add(upstream);
    client.on('data', (chunk) => this.blackholed || upstream.write(chunk));
    upstream.on('data', (chunk) => this.blackholed || client.write(chunk));
    const close = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('close', close);
      socket.on('error', close);
    }
  }
}
