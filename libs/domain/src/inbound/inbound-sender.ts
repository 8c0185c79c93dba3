import type { InboundNetworkMessage } from './inbound-network-message';
import { isGroupJid, isLidJid, phoneDigitsOf } from './jid-forms';

/** Who sent a received message and where a reply goes, as every inbound event states it. */
export interface InboundSender {
  /** Best sender identifier: a LID is replaced by the phone JID when it could be resolved. */
  from: string | null;
  /** The only correct `to` for a reply: the direct conversation, or the group. */
  replyTo: string | null;
  /** Sender number, digits only, when known. */
  phoneNumber: string | null;
  chat: string | null;
  participant: string | null;
  /** Sender identifier as received, before resolution (diagnostics). */
  rawFrom: string | null;
  /** Conversation identifier as received (diagnostics). */
  rawChat: string | null;
  pushName: string | null;
}

/**
 * The sender fields of a received message. Reply routing is the point of most rules here:
 * receivers are told to answer `replyTo` and nothing else, so it must always be something a send
 * accepts and that reaches the sender — the group for group messages, otherwise the
 * conversation, preferring the phone JID over a LID when the driver could resolve it.
 */
export function inboundSender(message: InboundNetworkMessage): InboundSender {
  const inGroup = isGroupJid(message.chat);
  // Who sent it, as received: in a group the participant; in a direct chat the conversation itself.
  const rawSender = message.participant ?? (inGroup ? null : message.chat);
  // A phone JID needs no resolution; a LID counts as resolved only if the driver resolved it.
  const resolvedSender =
    message.senderPhoneJid ?? (rawSender !== null && phoneDigitsOf(rawSender) !== null ? rawSender : null);

  let replyTo = message.chat;
  if (!inGroup && isLidJid(message.chat) && message.senderPhoneJid !== null) replyTo = message.senderPhoneJid;

  return {
    from: resolvedSender ?? rawSender,
    replyTo,
    phoneNumber: resolvedSender === null ? null : phoneDigitsOf(resolvedSender),
    chat: message.chat,
    participant: message.participant,
    rawFrom: message.participant ?? message.chat,
    rawChat: message.chat,
    pushName: message.pushName,
  };
}

/** When the network says the message was sent, or `now` when the driver could not read it (ISO 8601). */
export function sentAt(message: InboundNetworkMessage, now: Date): string {
  return (Number.isNaN(message.timestamp.getTime()) ? now : message.timestamp).toISOString();
}
