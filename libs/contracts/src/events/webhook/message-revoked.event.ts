import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';
import { changeMessageFields, senderFields } from './sender-fields';

/** `message.revoked` v1 (opt-in): a contact deleted one of their messages for everyone. */
export const messageRevokedEventSchema = z.object({
  event: z.literal('message.revoked'),
  ...eventEnvelopeFields,
  revoked: z.object({
    ...changeMessageFields,
    /** The deleted message's `message.id`. */
    messageId: z.string(),
    ...senderFields,
  }),
});
