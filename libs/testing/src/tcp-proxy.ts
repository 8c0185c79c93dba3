import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * Where the proxy's port is picked from: below the kernel's ephemeral range (Linux 32768-60999,
 * macOS 49152-65535). While a proxy is cut its port is free, and a port from the ephemeral range
 * could meanwhile be handed to some outgoing connection, making `restore()` fail with EADDRINUSE.
 */
const PORT_RANGE = { from: 20_000, to: 32_000 };
const PORT_ATTEMPTS = 50;

/** Ports the dependency URLs of the tests use when they name none. */
const DEFAULT_PORTS: Record<string, number> = {
  'postgres:': 5432,
  'postgresql:': 5432,
  'redis:': 6379,
  'nats:': 4222,
};

/**
 * A TCP forwarder between Jumbe processes and a dependency (PostgreSQL, Redis, NATS), so an
 * end-to-end test can take the dependency away and bring it back without stopping the shared
 * server other tests use. `cut()` looks like a server restart to the processes: open connections
 * drop and new ones are refused; `restore()` listens again on the same port, so the URLs the
 * processes were started with stay valid.
 *
 * libs/coordination and libs/messaging keep their own copies for their unit tests (test helpers
 * are not part of those libs' public APIs); this one is for the process-level tests.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private accepted = 0;
  private closed = false;

  private constructor(
    readonly targetHost: string,
    readonly targetPort: number,
    private readonly listenPort: number,
  ) {}

  /** Listens on a free port of 127.0.0.1 and forwards every connection to `host:port`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    for (let attempt = 1; ; attempt += 1) {
      const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
      const proxy = new TcpProxy(target.host, target.port, port);
      try {
        await proxy.listen();
        return proxy;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= PORT_ATTEMPTS) throw error;
      }
    }
  }

  /** A proxy in front of the server a URL names (`postgres://`, `redis://`, `nats://`). */
  static inFrontOf(url: string): Promise<TcpProxy> {
    const parsed = new URL(url);
    const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
    if (port === undefined) throw new Error(`no port in ${parsed.protocol} URL and no default known`);
    // URL keeps the brackets of an IPv6 host; net.connect wants the bare address.
    return TcpProxy.start({ host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port });
  }

  get port(): number {
    return this.listenPort;
  }

  /** `url` with its host and port replaced by the proxy's (credentials, path and query kept). */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.listenPort);
    return parsed.toString();
  }

  /** Connections accepted since the start: lets a test check the processes really go through here. */
  get connectionsAccepted(): number {
    return this.accepted;
  }

  get isCut(): boolean {
    return this.server === null;
  }

  /**
   * The dependency "goes away": every open connection is destroyed (clients see a reset, as when
   * the server process dies) and the port stops listening (new connections are refused, as
   * while the server restarts).
   */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.destroyConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The dependency "is back": listens again on the same port, so clients reconnect by themselves. */
  async restore(): Promise<void> {
    if (this.closed) throw new Error('the proxy is closed');
    if (this.server) return;
    await this.listen();
  }

  /** Stops for good (test teardown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.cut();
  }

  private async listen(): Promise<void> {
    const server = createServer((client) => this.forward(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Always the same port: the processes were given it and reconnect to it.
      server.listen(this.listenPort, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
  }

  private forward(client: Socket): void {
    // A connection that raced with cut() (accepted just before the server closed) is dropped too.
    if (this.server === null) {
      client.destroy();
      return;
    }
    this.accepted += 1;
    const upstream = connect(this.targetPort, this.targetHost);
    this.sockets.add(client);
    this.sockets.add(upstream);
    // Clients like ioredis and nats.js write small commands; Nagle would only add latency here.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    // pipe() carries backpressure and half-closes; any error or close ends both sides together.
    client.pipe(upstream);
    upstream.pipe(client);
    const close = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  }

  private destroyConnections(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}
