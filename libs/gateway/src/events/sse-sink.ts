import type { ServerResponse } from 'node:http';
import { SSE_HEARTBEAT, sseText, type StreamEndReason, type StreamFrame } from './stream-frame';
import type { StreamSink } from './stream-sink';

/** How long an ended stream's last bytes may take to leave before the connection is cut. */
const END_GRACE_MS = 5_000;

/** A stream as Server-Sent Events on the request's own response (`Accept: text/event-stream`). */
export class SseSink implements StreamSink {
  readonly closed: Promise<void>;

  /** `headers`: what the guard set (the X-Quota-* headers) besides the stream's own. */
  constructor(
    private readonly response: ServerResponse,
    headers: Record<string, string | number | string[] | undefined>,
  ) {
    this.closed = new Promise((resolve) => response.once('close', () => resolve()));
    // The heartbeat keeps the connection busy, and a dead one shows as bytes not taken: the
    // server's idle timeout is for requests, not for a stream that may be quiet for minutes.
    response.socket?.setTimeout(0);
    response.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // Proxies that buffer responses (nginx) pass this one through as it comes.
      'x-accel-buffering': 'no',
    });
  }

  send(frame: StreamFrame): void {
    this.write(sseText(frame));
  }

  heartbeat(): void {
    this.write(SSE_HEARTBEAT);
  }

  unsent(): number {
    return this.response.writableLength;
  }

  /** Nothing is written once the client is gone (its close ends the stream). */
  private write(text: string): void {
    if (!this.response.destroyed && !this.response.writableEnded) this.response.write(text);
  }

  end(reason: StreamEndReason, message: string): void {
    if (this.response.writableEnded) return;
    this.response.end(sseText({ kind: 'control', type: 'stream.end', data: { reason, message } }));
    // A client that takes nothing (the slow one) would hold the connection open with its backlog.
    setTimeout(() => this.response.destroy(), END_GRACE_MS).unref();
  }
}
