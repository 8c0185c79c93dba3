import { eventStreamFrameSchema } from './event-stream-frame.schema';
import { eventStreamQuerySchema } from './event-stream-query';
import type { RouteDescription } from '../http/route-description';

/** The live event stream, as EventsController serves it. */
export const EVENT_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/api/v1/events',
    tag: 'Events',
    summary:
      "Live event stream: the account's webhook events as they happen, over a WebSocket (subprotocol `jumbe.v1`; a browser may offer its key as `jumbe.key.<key>`) or as Server-Sent Events (`Accept: text/event-stream`). Resumable after the last id (`Last-Event-ID` or `since`); one API hit per stream opened; at most 5 open per account on each gateway (429 beyond). See docs/event-stream.md.",
    auth: 'key',
    query: eventStreamQuerySchema,
    response: eventStreamFrameSchema,
    alsoAnswers: {
      'text/event-stream':
        'Server-Sent Events: `id: <seq>`, `event: <type>`, `data: <the webhook event as JSON>` per event, a `stream.start` frame first, a `: heartbeat` comment every 15 s.',
    },
    errors: ['validation_error', 'rate_limited', 'unavailable'],
  },
];
