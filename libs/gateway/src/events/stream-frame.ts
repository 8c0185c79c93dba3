import type { StreamEvent } from '@jumbe/contracts';

/** One event as a stream carries it: the webhook's envelope (with its `deliveryId`) under its sequence. */
export interface EventFrame {
  kind: 'event';
  /** The event id (the live stream's sequence): what `Last-Event-ID` / `since` resume after. */
  seq: number;
  type: StreamEvent['event'];
  envelope: StreamEvent & { deliveryId: string };
}

/** What the stream tells about itself (`stream.start` first, `stream.end` last): no id. */
export interface ControlFrame {
  kind: 'control';
  type: 'stream.start' | 'stream.end';
  data: Record<string, unknown>;
}

export type StreamFrame = EventFrame | ControlFrame;

/** Why the server ended a stream, in its `stream.end` frame (and a WebSocket's close reason). */
export type StreamEndReason = 'slow_consumer' | 'shutting_down' | 'access_revoked' | 'feed_failed';

/** Text of the Server-Sent Events form: `id:`, `event:` and `data:` lines, a blank line after. */
export function sseText(frame: StreamFrame): string {
  if (frame.kind === 'control') return `event: ${frame.type}\ndata: ${JSON.stringify(frame.data)}\n\n`;
  return `id: ${frame.seq}\nevent: ${frame.type}\ndata: ${JSON.stringify(frame.envelope)}\n\n`;
}

/** A comment line: keeps proxies and the client from timing the idle stream out. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';

/** Text of a WebSocket message: `{ id, event, data }` (`id` only on events). */
export function webSocketText(frame: StreamFrame): string {
  if (frame.kind === 'control') return JSON.stringify({ event: frame.type, data: frame.data });
  return JSON.stringify({ id: frame.seq, event: frame.type, data: frame.envelope });
}
