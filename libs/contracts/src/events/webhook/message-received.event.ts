import { type InboundNetworkMessage, receivedMedia, receivedText, sentAt } from '@jumbe/domain';
import { z } from 'zod';
import { type EventEnvelope, eventEnvelopeFields } from './event-envelope';
import { inboundSender, senderFields } from './sender-fields';

/** A selected quick reply, list row or flow answer (also as the inbound outbox keeps it). */
export const receivedInteractionSchema = z.object({
  /** `quick_reply`, `list`, `single_select`, … */
  type: z.string(),
  /** The reply-button or list-row id given when the message was sent: what bots route on. */
  id: z.string().nullable(),
  /** Display label; never a command id. */
  label: z.string().nullable(),
});

/** Media metadata only: the file never travels with the event (also as the inbound outbox keeps it). */
export const receivedMediaSchema = z.object({
  type: z.enum(['image', 'video', 'audio', 'document', 'sticker']),
  mimetype: z.string().nullable(),
  fileName: z.string().nullable(),
  caption: z.string().nullable(),
  /** Duration of audio or video. */
  seconds: z.number().nullable(),
});

const receivedMessage = z.object({
  /** The network message id (the de-duplication key downstream). */
  id: z.string().nullable(),
  ...senderFields,
  /** Always false: the account's own messages are never emitted. */
  fromMe: z.literal(false),
  type: z.string(),
  text: z.string(),
  interaction: receivedInteractionSchema.nullable(),
  media: receivedMediaSchema.nullable(),
  /** When the network says the original message was sent (ISO 8601). */
  messageTimestamp: z.string(),
});

/** `message.received` v1: a message a contact sent to one of the account's sessions. */
export const messageReceivedEventSchema = z.object({
  event: z.literal('message.received'),
  ...eventEnvelopeFields,
  message: receivedMessage,
});

export type MessageReceivedEventV1 = z.output<typeof messageReceivedEventSchema>;

/**
 * The `message.received` body for a received message that says something (no `change`), by
 * libs/domain's rules: sender and reply routing, text, media (see `inboundMessageEvent`).
 */
export function messageReceivedEvent(
  envelope: EventEnvelope,
  message: InboundNetworkMessage,
  now: Date,
): MessageReceivedEventV1 {
  return {
    event: 'message.received',
    ...envelope,
    message: {
      id: message.id,
      ...inboundSender(message),
      fromMe: false,
      type: message.type,
      text: receivedText(message),
      interaction: message.interaction === null ? null : { ...message.interaction },
      media: receivedMedia(message),
      messageTimestamp: sentAt(message, now),
    },
  };
}
