import { createServer, type Server, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP hop between one worker and the emulator that a test can freeze and cut, so an in-process
 * worker can crash as the network sees a SIGKILLed process: `freeze()` stops its connections
 * both ways (what the server sends waits unread, as in a stopped process's socket buffer),
 * `crash()` drops them and refuses every later connection, so that worker never reaches the
 * network again. Point the worker's driver at `url` instead of the emulator's.
 */
export class WorkerLink {
  private server: Server | null = null;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private frozen = false;

  constructor(private readonly emulatorUrl: string) {}

  async start(): Promise<string> {
    const target = new URL(this.emulatorUrl);
    const server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      const pair = { client, upstream };
      this.pairs.add(pair);
      client.pipe(upstream);
      upstream.pipe(client);
      if (this.frozen) freeze(pair);
      const forget = () => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on('error', forget).on('close', forget);
      upstream.on('error', forget).on('close', forget);
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

  /** Nothing passes any more, either way, on the open connections (a stopped process). */
  freeze(): void {
    this.frozen = true;
    for (const pair of this.pairs) freeze(pair);
  }

  /** The worker is gone: its connections drop and no new one is accepted. */
  async crash(): Promise<void> {
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

function freeze({ client, upstream }: { client: Socket; upstream: Socket }): void {
  client.unpipe(upstream);
  upstream.unpipe(client);
  client.pause();
  upstream.pause();
}
