import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';
import { changeMessageFields, senderFields } from './sender-fields';

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
