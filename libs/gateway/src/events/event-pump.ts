import type { LiveEventCursor } from '../ports/live-event-feed';
import { eventFrameFor } from './event-frame-filter';
import type { StreamSink } from './stream-sink';

/** Bytes a stream may have written that its client has not taken, before it is dropped. */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/** How a pump ended: the cursor closed (the client went or the stream was ended), or the client was too slow. */
export type PumpOutcome = 'closed' | 'slow_consumer';

/**
 * Sends the account's events of the asked types from the cursor to the sink, as they come. It does
 * not wait for a slow client: events are written at once and a client that leaves more than
 * `maxUnsentBytes` untaken is dropped (the sink ended with `slow_consumer`), so the server never
 * buffers without bound; the client resumes from the last id it received.
 */
export async function pumpEvents(options: {
  cursor: LiveEventCursor;
  accountId: string;
  types: ReadonlySet<string>;
  sink: StreamSink;
  maxUnsentBytes?: number;
}): Promise<PumpOutcome> {
  const { cursor, accountId, types, sink } = options;
  const limit = options.maxUnsentBytes ?? MAX_UNSENT_BYTES;
  for await (const event of cursor) {
    const frame = eventFrameFor(event, accountId, types);
    if (frame === null) continue;
    sink.send(frame);
    if (sink.unsent() > limit) {
      sink.end(
        'slow_consumer',
        `more than ${limit} bytes of events were not taken; reconnect with the last id received`,
      );
      return 'slow_consumer';
    }
  }
  return 'closed';
}
