import type { WebSocket } from 'ws';
import { type StreamEndReason, type StreamFrame, webSocketText } from './stream-frame';
import type { StreamSink } from './stream-sink';

/** The close code of each reason a server ends a stream (4000–4999 are the application's). */
const CLOSE_CODES: Record<StreamEndReason, number> = {
  slow_consumer: 4008,
  access_revoked: 4003,
  shutting_down: 1012,
  feed_failed: 1011,
};

/** A stream as WebSocket text messages, one JSON object each. */
export class WebSocketSink implements StreamSink {
  readonly closed: Promise<void>;

  constructor(private readonly socket: WebSocket) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  send(frame: StreamFrame): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(webSocketText(frame));
  }

  heartbeat(): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.ping();
  }

  unsent(): number {
    return this.socket.bufferedAmount;
  }

  end(reason: StreamEndReason, message: string): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(webSocketText({ kind: 'control', type: 'stream.end', data: { reason, message } }));
    this.socket.close(CLOSE_CODES[reason], reason);
  }
}
