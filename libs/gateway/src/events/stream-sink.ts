import type { StreamEndReason, StreamFrame } from './stream-frame';

/** Where a stream's frames go: a Server-Sent Events response or a WebSocket. */
export interface StreamSink {
  send(frame: StreamFrame): void;
  /** Shows the idle stream is alive (an SSE comment, a WebSocket ping). */
  heartbeat(): void;
  /** Bytes written that the client's connection has not taken yet. */
  unsent(): number;
  /** Sends `stream.end` with the reason, then closes. */
  end(reason: StreamEndReason, message: string): void;
  /** Resolves once the connection is closed, by either side. */
  readonly closed: Promise<void>;
}
