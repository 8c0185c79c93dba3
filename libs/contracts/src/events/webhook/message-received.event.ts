import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';
import { senderFields } from './sender-fields';

const interaction = z.object({
  /** `quick_reply`, `list`, `single_select`, … */
  type: z.string(),
  /** The reply-button or list-row id given when the message was sent: what bots route on. */
  id: z.string().nullable(),
  /** Display label; never a command id. */
  label: z.string().nullable(),
});

const media = z.object({
  type: z.enum(['image', 'video', 'audio', 'document', 'sticker']),
  mimetype: z.string().nullable(),
  fileName: z.string().nullable(),
  caption: z.string().nullable(),
  /** Duration of audio or video. */
  seconds: z.number().nullable(),
});

const receivedMessage = z.object({
  id: z.string().nullable(),
  ...senderFields,
  fromMe: z.literal(false),
  type: z.string(),
  text: z.string(),
  interaction: interaction.nullable(),
  media: media.nullable(),
  messageTimestamp: z.string(),
});

/** `message.received` v1: a message a contact sent to one of the account's sessions. */
export const messageReceivedEventSchema = z.object({
  event: z.literal('message.received'),
  ...eventEnvelopeFields,
  message: receivedMessage,
});
