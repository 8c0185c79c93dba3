import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';
import { changeMessageFields, senderFields } from './sender-fields';

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
