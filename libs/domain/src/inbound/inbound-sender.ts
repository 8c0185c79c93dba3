import type { InboundNetworkMessage } from './inbound-network-message';
import { isGroupJid, isLidJid, phoneDigitsOf } from './jid-forms';

// Who sent a received message and where a reply goes: the rules every inbound event's sender
// fields come from (libs/contracts' `inboundSender` writes them into the events' shape). Reply
// routing is the point of most of them: receivers are told to answer `replyTo` and nothing else,
// so it must always be something a send accepts and that reaches the sender.

/** Who sent it, as received: in a group the participant; in a direct chat the conversation itself. */
export function rawSender(message: InboundNetworkMessage): string | null {
  return message.participant ?? (isGroupJid(message.chat) ? null : message.chat);
}

/**
 * The sender as a phone JID, or null when unknown: a phone JID needs no resolution; a LID counts
 * as resolved only if the driver resolved it.
 */
export function resolvedSender(message: InboundNetworkMessage): string | null {
  const raw = rawSender(message);
  return message.senderPhoneJid ?? (raw !== null && phoneDigitsOf(raw) !== null ? raw : null);
}

/** The number of a sender `resolvedSender` gave, digits only; null when the sender is unknown. */
export function senderPhoneNumber(resolved: string | null): string | null {
  return resolved === null ? null : phoneDigitsOf(resolved);
}

/**
 * The only correct `to` for a reply: the group for group messages, otherwise the conversation,
 * preferring the phone JID over a LID when the driver could resolve it.
 */
export function replyAddress(message: InboundNetworkMessage): string {
  const directLid = !isGroupJid(message.chat) && isLidJid(message.chat);
  return directLid && message.senderPhoneJid !== null ? message.senderPhoneJid : message.chat;
}

/** When the network says the message was sent, or `now` when the driver could not read it (ISO 8601). */
export function sentAt(message: InboundNetworkMessage, now: Date): string {
  return (Number.isNaN(message.timestamp.getTime()) ? now : message.timestamp).toISOString();
}
