import type { InboundChange, InboundNetworkMessage } from '@jumbe/domain';
import { z } from 'zod';
import { type EventEnvelope, eventEnvelopeFields } from './event-envelope';
import { changeMessage, changeMessageFields, inboundSender, senderFields } from './sender-fields';

/** `message.reaction` v1 (opt-in): a contact reacted to a message of the chat, or took the reaction away. */
export const messageReactionEventSchema = z.object({
  event: z.literal('message.reaction'),
  ...eventEnvelopeFields,
  reaction: z.object({
    ...changeMessageFields,
    /** The message reacted to (a received one's `message.id`, or a sent one's `key.id`). */
    messageId: z.string(),
    /** The emoji; `''` when the sender removed their reaction. */
    emoji: z.string(),
    ...senderFields,
  }),
});

export type MessageReactionEventV1 = z.output<typeof messageReactionEventSchema>;

/** The `message.reaction` body for a received reaction (see `inboundMessageEvent`). */
export function messageReactionEvent(
  envelope: EventEnvelope,
  message: InboundNetworkMessage,
  change: Extract<InboundChange, { kind: 'reaction' }>,
  now: Date,
): MessageReactionEventV1 {
  return {
    event: 'message.reaction',
    ...envelope,
    reaction: {
      ...changeMessage(message, now),
      messageId: change.messageId,
      emoji: change.emoji,
      ...inboundSender(message),
    },
  };
}
