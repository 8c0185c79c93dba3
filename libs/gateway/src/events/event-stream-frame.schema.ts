import { z } from 'zod';

/** One WebSocket message of `GET /api/v1/events` (an SSE frame carries the same as `id:`, `event:`, `data:`). */
export const eventStreamFrameSchema = z.object({
  id: z
    .number()
    .int()
    .optional()
    .describe(
      'The event id (the live stream sequence) to resume after; absent on `stream.start` and `stream.end`.',
    ),
  event: z
    .string()
    .describe(
      'The event type (`message.received`, …), or `stream.start` (first: how the stream resumed, `live`, `complete` or `gap`) or `stream.end` (last: why the server ended it).',
    ),
  data: z
    .record(z.string(), z.unknown())
    .describe(
      "The event exactly as the account's webhook receives it (with `deliveryId`), or the control frame's fields.",
    ),
});
