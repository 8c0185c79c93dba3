import type { InboundChange, InboundNetworkMessage } from '@jumbe/domain';
import { z } from 'zod';
import { type EventEnvelope, eventEnvelopeFields } from './event-envelope';
import { changeMessage, changeMessageFields, inboundSender, senderFields } from './sender-fields';

/** `message.edited` v1 (opt-in): a contact changed the text (or caption) of one of their messages. */
export const messageEditedEventSchema = z.object({
  event: z.literal('message.edited'),
  ...eventEnvelopeFields,
  edited: z.object({
    ...changeMessageFields,
    /** The edited message's `message.id`. */
    messageId: z.string(),
    /** Its new text. */
    text: z.string(),
    ...senderFields,
  }),
});

export type MessageEditedEventV1 = z.output<typeof messageEditedEventSchema>;

/** The `message.edited` body for a received edit (see `inboundMessageEvent`). */
export function messageEditedEvent(
  envelope: EventEnvelope,
  message: InboundNetworkMessage,
  change: Extract<InboundChange, { kind: 'edit' }>,
  now: Date,
): MessageEditedEventV1 {
  return {
    event: 'message.edited',
    ...envelope,
    edited: {
      ...changeMessage(message, now),
      messageId: change.messageId,
      text: change.text,
      ...inboundSender(message),
    },
  };
}
