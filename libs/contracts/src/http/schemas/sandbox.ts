import { z } from 'zod';
import { MESSAGE_STATUSES } from '../../events/webhook/message-status.event';
import { phoneNumberField, sessionIdField } from './common';

export const sandboxScanSchema = z.strictObject({ sessionId: sessionIdField, phoneNumber: phoneNumberField });

const mediaSchema = z.strictObject({
  type: z.enum(['image', 'video', 'audio', 'document', 'sticker']),
  mimetype: z.string().nullable().optional(),
  fileName: z.string().nullable().optional(),
  caption: z.string().nullable().optional(),
  seconds: z.number().nonnegative().nullable().optional(),
  data: z
    .base64()
    .optional()
    .describe(
      'The file itself, base64 (within the body limit): `GET /messages/media` serves it for 7 days. Without it the message has no file (404 `media_not_found`).',
    ),
});

const interactionSchema = z.strictObject({
  type: z.string().min(1),
  id: z.string().nullable().optional(),
  label: z.string().nullable().optional(),
});

export const sandboxInboundSchema = z.strictObject({
  sessionId: sessionIdField,
  from: phoneNumberField,
  pushName: z.string().max(256).optional(),
  text: z.string().max(65_536).optional(),
  group: z
    .strictObject({
      id: z.string().regex(/^[0-9-]+@g\.us$/, 'group.id must end in @g.us'),
      participant: phoneNumberField.optional(),
    })
    .optional(),
  lid: z.boolean().optional(),
  media: mediaSchema.optional(),
  interaction: interactionSchema.optional(),
  // A message that changes an earlier one of the chat instead (→ message.reaction, message.revoked,
  // message.edited; never message.received). One of them at most; text, media and interaction are then ignored.
  reaction: z
    .strictObject({ messageId: z.string().min(1).max(128), emoji: z.string().max(32) })
    .optional()
    .describe('The contact reacts to a message (`emoji: ""` removes the reaction).'),
  revoke: z
    .strictObject({ messageId: z.string().min(1).max(128) })
    .optional()
    .describe('The contact deletes one of their messages for everyone.'),
  edit: z
    .strictObject({ messageId: z.string().min(1).max(128), text: z.string().max(65_536) })
    .optional()
    .describe("The contact changes one of their messages' text."),
  pollVote: z
    .strictObject({
      pollId: z.string().min(1).max(128).describe("The `key.id` the poll's send returned."),
      options: z.array(z.string().min(1).max(100)).max(12),
    })
    .optional()
    .describe(
      'The contact votes on a poll the session sent them (→ message.poll_vote): their whole choice, by option text; `[]` takes the vote back. Text, media and the other changes are then ignored.',
    ),
});

export const sandboxOutboxQuerySchema = z.strictObject({
  sessionId: sessionIdField,
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const sandboxDisconnectSchema = z.strictObject({
  sessionId: sessionIdField,
  reason: z.enum(['network', 'logged_out']),
});

/** What the recipient's phone or the network did with a message the session sent. */
export const sandboxStatusSchema = z.strictObject({
  sessionId: sessionIdField,
  messageId: z.string().min(1).max(128).describe('The `key.id` a send returned.'),
  status: z.enum(MESSAGE_STATUSES),
});
