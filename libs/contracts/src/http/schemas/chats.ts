import { z } from 'zod';
import { phoneNumberField, recipientField, sessionIdField } from './common';
import { messageIdField } from './conversation-messages';

/** `POST /chats/read`: blue ticks on received messages of one chat (extension). */
export const chatReadSchema = z.strictObject({
  sessionId: sessionIdField,
  chat: recipientField,
  messageIds: z
    .array(messageIdField)
    .min(1, 'messageIds needs 1 to 100 ids')
    .max(100, 'messageIds needs 1 to 100 ids'),
});

export const PRESENCE_STATES = ['typing', 'recording', 'paused'] as const;

/** `POST /chats/presence`: "typing…" or "recording audio…" in one chat, until `paused` (extension). */
export const chatPresenceSchema = z.strictObject({
  sessionId: sessionIdField,
  chat: recipientField,
  state: z.enum(PRESENCE_STATES),
});

/** `GET /contacts/check`: is this number on WhatsApp (extension). */
export const contactCheckQuerySchema = z.strictObject({
  sessionId: sessionIdField,
  phoneNumber: phoneNumberField,
});

export const chatReadResultSchema = z.object({ chat: z.string(), messageIds: z.array(z.string()) });
export const chatPresenceResultSchema = z.object({ chat: z.string(), state: z.enum(PRESENCE_STATES) });
export const contactCheckResultSchema = z.object({
  phoneNumber: z.string(),
  onWhatsApp: z.boolean(),
  /** The JID to send to (use it as `to`), or null when the number is not on WhatsApp. */
  recipientId: z.string().nullable(),
});
