import type { InboundNetworkMessage } from './inbound-network-message';
import { inboundSender, sentAt } from './inbound-sender';
import { STATUS_BROADCAST_JID } from './jid-forms';
import type { MessageReceivedEvent } from './message-received-event';
import { wellFormedText } from './well-formed-text';

/** Whether a received message is forwarded at all: never the account's own, nor status broadcasts. */
export function isForwarded(message: InboundNetworkMessage): boolean {
  return !message.fromMe && message.chat !== STATUS_BROADCAST_JID;
}

/**
 * Builds the `message.received` body for one network message, or null when it is not one: the
 * spec does not forward the account's own messages and status broadcasts, and a reaction, a
 * deletion or an edit (`change`) is an event of its own (see inbound-change events).
 */
export function normaliseInbound(
  accountId: string,
  sessionId: string,
  message: InboundNetworkMessage,
  now: Date,
): MessageReceivedEvent | null {
  if (!isForwarded(message) || message.change !== undefined) return null;
  const sender = inboundSender(message);
  return {
    event: 'message.received',
    timestamp: now.toISOString(),
    customerId: accountId,
    sessionId,
    message: {
      id: message.id,
      from: sender.from,
      replyTo: sender.replyTo,
      phoneNumber: sender.phoneNumber,
      chat: sender.chat,
      participant: sender.participant,
      rawFrom: sender.rawFrom,
      rawChat: sender.rawChat,
      fromMe: false,
      pushName: sender.pushName,
      type: message.type,
      text: textOf(message),
      interaction: message.interaction === null ? null : { ...message.interaction },
      media: mediaOf(message),
      messageTimestamp: sentAt(message, now),
    },
  };
}

/** The media's description; a file name a phone can put anything in is made well-formed UTF-16. */
function mediaOf(message: InboundNetworkMessage): MessageReceivedEvent['message']['media'] {
  if (message.media === null) return null;
  const { fileName } = message.media;
  return { ...message.media, fileName: fileName === null ? null : wellFormedText(fileName) };
}

/** Selected id for interactive replies (bots route on it), else the text, else the media caption. */
function textOf(message: InboundNetworkMessage): string {
  if (message.interaction?.id != null) return message.interaction.id;
  if (message.text !== '') return message.text;
  return message.media?.caption ?? '';
}
