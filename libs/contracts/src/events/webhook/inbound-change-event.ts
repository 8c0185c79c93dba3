import { type InboundNetworkMessage, inboundSender, isForwarded, sentAt } from '@jumbe/domain';
import type { z } from 'zod';
import type { messageEditedEventSchema } from './message-edited.event';
import type { messageReactionEventSchema } from './message-reaction.event';
import type { messageRevokedEventSchema } from './message-revoked.event';

export type InboundChangeEvent =
  | z.output<typeof messageReactionEventSchema>
  | z.output<typeof messageRevokedEventSchema>
  | z.output<typeof messageEditedEventSchema>;

/**
 * The event for a received message that changes an earlier one (a reaction, a deletion, an
 * edit), or null when the message is no change or is not forwarded (the account's own).
 */
export function inboundChangeEvent(
  accountId: string,
  sessionId: string,
  message: InboundNetworkMessage,
  now: Date,
): InboundChangeEvent | null {
  const change = message.change;
  if (change === undefined || !isForwarded(message)) return null;
  const envelope = { timestamp: now.toISOString(), customerId: accountId, sessionId };
  const about = {
    id: message.id,
    messageTimestamp: sentAt(message, now),
    messageId: change.messageId,
  };
  const sender = inboundSender(message);
  switch (change.kind) {
    case 'reaction':
      return {
        event: 'message.reaction',
        ...envelope,
        reaction: { ...about, emoji: change.emoji, ...sender },
      };
    case 'revoke':
      return { event: 'message.revoked', ...envelope, revoked: { ...about, ...sender } };
    case 'edit':
      return { event: 'message.edited', ...envelope, edited: { ...about, text: change.text, ...sender } };
  }
}
