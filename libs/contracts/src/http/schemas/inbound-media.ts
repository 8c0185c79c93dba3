import { z } from 'zod';
import { sessionIdField } from './common';

/** `GET /messages/media` (extension): the file of a media message a session received. */
export const inboundMediaQuerySchema = z.strictObject({
  sessionId: sessionIdField,
  messageId: z
    .string()
    .min(1)
    .max(128)
    .describe('The `message.id` of a `message.received` event whose `media` is not null.'),
});

/**
 * What the worker answers once the file is in the media store: the object to stream, and the
 * headers to stream it with. `object` is a name in the store, never chosen by a client.
 */
export const inboundMediaFileSchema = z.object({
  object: z.string().regex(/^[0-9a-f]{64}$/),
  mimetype: z.string(),
  fileName: z.string().nullable(),
  size: z.number().int().nonnegative(),
});

export type InboundMediaFileView = z.output<typeof inboundMediaFileSchema>;
