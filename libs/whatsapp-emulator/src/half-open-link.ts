import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP hop between a driver and the emulator whose open connections can go half-open, as when a
 * phone's or a worker's network path changes under it: after `strand()` the client's end of each
 * open connection breaks (the client sees its socket close and reconnects) while the server's end
 * stays open and hears nothing more, until its own timeout. Connections made later pass normally,
 * so the client logs in again while the server still holds the old connection.
 */
export class HalfOpenLink {
  private server: Server | null = null;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket; stranded: boolean }>();

  constructor(private readonly emulatorUrl: string) {}

  async start(): Promise<string> {
    const target = new URL(this.emulatorUrl);
    const server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      const pair = { client, upstream, stranded: false };
      this.pairs.add(pair);
      client.pipe(upstream);
      upstream.pipe(client);
      // A stranded pair's ends stay apart: the close of one never reaches the other.
      client
        .on('error', () => pair.stranded || upstream.destroy())
        .on('close', () => pair.stranded || upstream.destroy());
      upstream
        .on('error', () => pair.stranded || client.destroy())
        .on('close', () => pair.stranded || client.destroy());
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return this.url;
  }

  get url(): string {
    if (!this.server) throw new Error('link not started');
    const { port } = this.server.address() as AddressInfo;
    return `ws://127.0.0.1:${port}${new URL(this.emulatorUrl).pathname}`;
  }

  /** The connections open now go half-open: the client's ends break, the server's stay open, silent. */
  strand(): void {
    for (const pair of this.pairs) {
      if (pair.stranded) continue;
      pair.stranded = true;
      pair.client.unpipe(pair.upstream);
      pair.upstream.unpipe(pair.client);
      // What the server sends now waits unread in the upstream socket.
      pair.upstream.pause();
      pair.client.destroy();
    }
  }

  /** Drops every connection and stops accepting. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
