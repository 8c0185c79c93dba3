import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

/** A proxy on 127.0.0.1 for tests: where it listens and every tunnel it was asked for. */
export interface LocalProxy {
  /** `http://user:pass@127.0.0.1:<port>` or `socks5://…`: what a session's proxy is set to. */
  readonly url: string;
  readonly port: number;
  /** `host:port` of every tunnel a client asked for and was granted, in order. */
  readonly tunnels: string[];
  /** Requests refused for bad or missing credentials. */
  readonly refused: number;
  close(): Promise<void>;
}

interface Credentials {
  username: string;
  password: string;
}

/**
 * A tiny HTTP proxy that only tunnels (CONNECT), as forward proxies for WebSocket and HTTPS
 * traffic do; with `credentials` it demands them (`Proxy-Authorization: Basic`), else 407.
 */
export async function startConnectProxy(credentials?: Credentials): Promise<LocalProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<net.Socket>();
  let refused = 0;
  const server = http.createServer((_request, response) => response.writeHead(405).end());
  server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (credentials && request.headers['proxy-authorization'] !== basic(credentials)) {
      refused += 1;
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
      return;
    }
    const target = request.url ?? '';
    const { host, port } = splitTarget(target);
    const upstream = net.connect(port, host, () => {
      tunnels.push(target);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  return listen(
    server,
    sockets,
    (port) => `http://${userinfo(credentials)}127.0.0.1:${port}`,
    tunnels,
    () => refused,
  );
}

/** A tiny SOCKS5 proxy (RFC 1928, CONNECT only), with RFC 1929 user/password when `credentials` are given. */
export async function startSocks5Proxy(credentials?: Credentials): Promise<LocalProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<net.Socket>();
  let refused = 0;
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    const reader = new ByteReader(client);
    void (async () => {
      const [, methodCount] = await reader.take(2);
      const methods = await reader.take(methodCount ?? 0);
      const wanted = credentials ? 0x02 : 0x00;
      if (!methods.includes(wanted)) return client.end(Buffer.from([0x05, 0xff]));
      client.write(Buffer.from([0x05, wanted]));
      if (credentials) {
        const [, userLength] = await reader.take(2);
        const username = (await reader.take(userLength ?? 0)).toString();
        const [passwordLength] = await reader.take(1);
        const password = (await reader.take(passwordLength ?? 0)).toString();
        const ok = username === credentials.username && password === credentials.password;
        client.write(Buffer.from([0x01, ok ? 0x00 : 0x01]));
        if (!ok) {
          refused += 1;
          return client.end();
        }
      }
      const [, command, , addressType] = await reader.take(4);
      const host = await readAddress(reader, addressType ?? 0);
      const port = (await reader.take(2)).readUInt16BE(0);
      if (command !== 0x01) return client.end(Buffer.from([0x05, 0x07, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
      const upstream = net.connect(port, host, () => {
        tunnels.push(`${host}:${port}`);
        client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 127, 0, 0, 1, 0, 0]));
        const rest = reader.release();
        if (rest.length > 0) upstream.write(rest);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('error', () => client.end(Buffer.from([0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0])));
      client.on('close', () => upstream.destroy());
    })().catch(() => client.destroy());
  });
  return listen(
    server,
    sockets,
    (port) => `socks5://${userinfo(credentials)}127.0.0.1:${port}`,
    tunnels,
    () => refused,
  );
}

/** A port on 127.0.0.1 where nothing listens (a proxy that is down). */
export async function deadProxyPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function listen(
  server: net.Server,
  sockets: Set<net.Socket>,
  urlOf: (port: number) => string,
  tunnels: string[],
  refused: () => number,
): Promise<LocalProxy> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: urlOf(port),
    port,
    tunnels,
    get refused() {
      return refused();
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readAddress(reader: ByteReader, addressType: number): Promise<string> {
  if (addressType === 0x01) return [...(await reader.take(4))].join('.');
  if (addressType === 0x03) {
    const [length] = await reader.take(1);
    return (await reader.take(length ?? 0)).toString();
  }
  const bytes = await reader.take(16);
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(bytes.readUInt16BE(index).toString(16));
  return groups.join(':');
}

function splitTarget(target: string): { host: string; port: number } {
  const colon = target.lastIndexOf(':');
  return { host: target.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(target.slice(colon + 1)) };
}

function basic({ username, password }: Credentials): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

function userinfo(credentials: Credentials | undefined): string {
  return credentials
    ? `${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@`
    : '';
}

/** Reads exact byte counts off a socket until the tunnel takes over. */
class ByteReader {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  private readonly onData = (chunk: Buffer) => {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    this.waiting?.();
  };

  constructor(private readonly socket: net.Socket) {
    socket.on('data', this.onData);
  }

  async take(count: number): Promise<Buffer> {
    while (this.buffered.length < count) {
      await new Promise<void>((resolve, reject) => {
        this.waiting = resolve;
        this.socket.once('close', () => reject(new Error('closed')));
      });
      this.waiting = null;
    }
    const taken = this.buffered.subarray(0, count);
    this.buffered = this.buffered.subarray(count);
    return taken;
  }

  /** Stops reading; returns what arrived beyond the handshake. */
  release(): Buffer {
    this.socket.off('data', this.onData);
    return this.buffered;
  }
}
