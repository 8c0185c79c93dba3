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
 * Besides outages, a proxy can make the dependency hang (`blackhole()`) or sit behind a slow link
 * (`latencyMs`), for the unit tests of libs/coordination and libs/messaging as much as for the
 * process-level tests.
 */
export interface TcpProxyOptions {
  /**
   * Delays what clients send by this much (replies are not delayed), to make "did X reach the
   * server before Y" deterministic. 0 (the default) forwards at once.
   */
  latencyMs?: number;
}

/** One client connection and the proxy's connection to the dependency on its behalf. */
interface Link {
  client: Socket;
  upstream: Socket;
}

export class TcpProxy {
  private server: Server | null = null;
  private readonly links = new Set<Link>();
  private accepted = 0;
  private closed = false;
  private blackholed = false;

  private constructor(
    readonly targetHost: string,
    readonly targetPort: number,
    private readonly listenPort: number,
    private readonly latencyMs: number,
  ) {}

  /** Listens on a free port of 127.0.0.1 and forwards every connection to `host:port`. */
  static async start(
    target: { host: string; port: number },
    options: TcpProxyOptions = {},
  ): Promise<TcpProxy> {
    const latencyMs = options.latencyMs ?? 0;
    if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new Error(`invalid latencyMs: ${latencyMs}`);
    for (let attempt = 1; ; attempt += 1) {
      const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
      const proxy = new TcpProxy(target.host, target.port, port, latencyMs);
      try {
        await proxy.listen();
        return proxy;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= PORT_ATTEMPTS) throw error;
      }
    }
  }

  /** A proxy in front of the server a URL names (`postgres://`, `redis://`, `nats://`). */
  static inFrontOf(url: string, options: TcpProxyOptions = {}): Promise<TcpProxy> {
    const parsed = new URL(url);
    const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
    if (port === undefined) throw new Error(`no port in ${parsed.protocol} URL and no default known`);
    // URL keeps the brackets of an IPv6 host; net.connect wants the bare address.
    return TcpProxy.start({ host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port }, options);
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
    this.blackholed = false;
    this.destroyConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * The dependency "hangs": connections stay open (and new ones are accepted) but nothing is
   * forwarded any more, either way. Lasts until `cut()` or `restore()`.
   */
  blackhole(): void {
    if (this.closed) throw new Error('the proxy is closed');
    this.blackholed = true;
    for (const link of this.links) silence(link);
  }

  get isBlackholed(): boolean {
    return this.blackholed;
  }

  /**
   * The dependency "is back": listens again on the same port, so clients reconnect by themselves.
   * After `blackhole()`, the hung connections are dropped (as if the server had restarted) and
   * new ones are forwarded again.
   */
  async restore(): Promise<void> {
    if (this.closed) throw new Error('the proxy is closed');
    if (this.blackholed) {
      this.blackholed = false;
      this.destroyConnections();
    }
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
    const link: Link = { client, upstream };
    this.links.add(link);
    // Clients like ioredis and nats.js write small commands; Nagle would only add latency here.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    if (this.blackholed) {
      silence(link);
    } else {
      // pipe() carries backpressure and half-closes; any error or close ends both sides together.
      if (this.latencyMs === 0) client.pipe(upstream);
      else this.forwardLate(client, upstream);
      upstream.pipe(client);
    }
    const close = (): void => {
      client.destroy();
      upstream.destroy();
      this.links.delete(link);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  }

  /** The slow link: every chunk (and the half-close) reaches the dependency `latencyMs` later. */
  private forwardLate(client: Socket, upstream: Socket): void {
    // Equal delays fire in order, so the byte stream stays intact.
    const later = (send: () => void): void => {
      setTimeout(() => {
        if (!upstream.destroyed && !this.blackholed) send();
      }, this.latencyMs);
    };
    client.on('data', (chunk: Buffer) => {
      if (!this.blackholed) later(() => upstream.write(chunk));
    });
    client.on('end', () => later(() => upstream.end()));
  }

  private destroyConnections(): void {
    for (const { client, upstream } of this.links) {
      client.destroy();
      upstream.destroy();
    }
    this.links.clear();
  }
}

/** Stops forwarding on a link but keeps both sockets open, reading and dropping what arrives. */
function silence({ client, upstream }: Link): void {
  client.unpipe(upstream);
  upstream.unpipe(client);
  for (const socket of [client, upstream]) {
    socket.on('data', () => undefined);
    socket.resume();
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}
