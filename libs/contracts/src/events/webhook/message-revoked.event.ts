import type { InboundChange, InboundNetworkMessage } from '@jumbe/domain';
import { z } from 'zod';
import { type EventEnvelope, eventEnvelopeFields } from './event-envelope';
import { changeMessage, changeMessageFields, inboundSender, senderFields } from './sender-fields';

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

export type MessageRevokedEventV1 = z.output<typeof messageRevokedEventSchema>;

/** The `message.revoked` body for a received deletion for everyone (see `inboundMessageEvent`). */
export function messageRevokedEvent(
  envelope: EventEnvelope,
  message: InboundNetworkMessage,
  change: Extract<InboundChange, { kind: 'revoke' }>,
  now: Date,
): MessageRevokedEventV1 {
  return {
    event: 'message.revoked',
    ...envelope,
    revoked: { ...changeMessage(message, now), messageId: change.messageId, ...inboundSender(message) },
  };
}
