import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived (signatures are over these bytes). */
  raw: Buffer;
  json: any;
  receivedAt: number;
}

/** How the receiver answers one request; the default is 200 "ok". */
export type ReceiverBehaviour = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: records every request, and answers as the
 * test tells it (by path), so one server can play a healthy, a failing and a hanging receiver.
 */
export class RecordingReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly behaviours = new Map<string, ReceiverBehaviour>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<RecordingReceiver> {
    const handlers: { handle?: (request: IncomingMessage, response: ServerResponse) => void } = {};
    const server = createServer((request, response) => handlers.handle?.(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new RecordingReceiver(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    );
    handlers.handle = (request, response) => receiver.handle(request, response);
    return receiver;
  }

  /** Answers requests to `path` with `behaviour` from now on. */
  on(path: string, behaviour: ReceiverBehaviour): void {
    this.behaviours.set(path, behaviour);
  }

  at(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  async waitFor(path: string, count: number, timeoutMs = 20_000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.at(path).length < count && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    return this.at(path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = undefined;
      }
      const path = request.url ?? '/';
      this.requests.push({ path, headers: request.headers, raw, json, receivedAt: Date.now() });
      const behaviour = this.behaviours.get(path);
      if (behaviour) behaviour(request, response);
      else response.end('ok');
    });
  }
}
