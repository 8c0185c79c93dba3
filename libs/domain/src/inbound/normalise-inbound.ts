import type { InboundNetworkMessage } from './inbound-network-message';
import { isGroupJid, isLidJid, phoneDigitsOf, STATUS_BROADCAST_JID } from './jid-forms';
import type { MessageReceivedEvent } from './message-received-event';

/**
 * Builds the `message.received` body for one network message, or null when the spec says the
 * message is not forwarded (the account's own messages, status broadcasts).
 *
 * Reply routing is the point of most rules here: receivers are told to answer `message.replyTo`
 * and nothing else, so it must always be something a send accepts and that reaches the sender —
 * the group for group messages, otherwise the conversation, preferring the phone JID over a LID
 * when the driver could resolve it.
 */
export function normaliseInbound(
  accountId: string,
  sessionId: string,
  message: InboundNetworkMessage,
  now: Date,
): MessageReceivedEvent | null {
  if (message.fromMe || message.chat === STATUS_BROADCAST_JID) return null;

  const inGroup = isGroupJid(message.chat);
  // Who sent it, as received: in a group the participant; in a direct chat the conversation itself.
  const rawSender = message.participant ?? (inGroup ? null : message.chat);
  // A phone JID needs no resolution; a LID counts as resolved only if the driver resolved it.
  const resolvedSender =
    message.senderPhoneJid ?? (rawSender !== null && phoneDigitsOf(rawSender) !== null ? rawSender : null);

  let replyTo = message.chat;
  if (!inGroup && isLidJid(message.chat) && message.senderPhoneJid !== null) replyTo = message.senderPhoneJid;

  return {
    event: 'message.received',
    timestamp: now.toISOString(),
    customerId: accountId,
    sessionId,
    message: {
      id: message.id,
      from: resolvedSender ?? rawSender,
      replyTo,
      phoneNumber: resolvedSender === null ? null : phoneDigitsOf(resolvedSender),
      chat: message.chat,
      participant: message.participant,
      rawFrom: message.participant ?? message.chat,
      rawChat: message.chat,
      fromMe: false,
      pushName: message.pushName,
      type: message.type,
      text: textOf(message),
      interaction: message.interaction === null ? null : { ...message.interaction },
      media: message.media === null ? null : { ...message.media },
      // A driver that could not read the network's time still yields a valid ISO timestamp.
      messageTimestamp: (Number.isNaN(message.timestamp.getTime()) ? now : message.timestamp).toISOString(),
    },
  };
}

/** Selected id for interactive replies (bots route on it), else the text, else the media caption. */
function textOf(message: InboundNetworkMessage): string {
  if (message.interaction?.id != null) return message.interaction.id;
  if (message.text !== '') return message.text;
  return message.media?.caption ?? '';
}
