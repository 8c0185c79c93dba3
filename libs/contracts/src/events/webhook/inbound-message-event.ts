import { type InboundNetworkMessage, isForwarded } from '@jumbe/domain';
import { eventEnvelope } from './event-envelope';
import { type MessageEditedEventV1, messageEditedEvent } from './message-edited.event';
import { type MessageReactionEventV1, messageReactionEvent } from './message-reaction.event';
import { type MessageReceivedEventV1, messageReceivedEvent } from './message-received.event';
import { type MessageRevokedEventV1, messageRevokedEvent } from './message-revoked.event';

/** The events a received message becomes. */
export type InboundMessageEvent =
  MessageReceivedEventV1 | MessageReactionEventV1 | MessageRevokedEventV1 | MessageEditedEventV1;

/**
 * The one place a received message's kind is told apart: `message.received` for a message that
 * says something, `message.reaction`, `message.revoked` or `message.edited` for one that changes
 * an earlier message (`change`); null for a message that is not forwarded at all (the account's
 * own, a status broadcast). Each event's builder sits beside its schema.
 */
export function inboundMessageEvent(
  accountId: string,
  sessionId: string,
  message: InboundNetworkMessage,
  now: Date,
): InboundMessageEvent | null {
  if (!isForwarded(message)) return null;
  const envelope = eventEnvelope(accountId, sessionId, now);
  const change = message.change;
  switch (change?.kind) {
    case undefined:
      return messageReceivedEvent(envelope, message, now);
    case 'reaction':
      return messageReactionEvent(envelope, message, change, now);
    case 'revoke':
      return messageRevokedEvent(envelope, message, change, now);
    case 'edit':
      return messageEditedEvent(envelope, message, change, now);
  }
}
