import {
  type InboundNetworkMessage,
  rawSender,
  replyAddress,
  resolvedSender,
  senderPhoneNumber,
  sentAt,
} from '@jumbe/domain';
import { z } from 'zod';

/**
 * Who sent a received message and where a reply goes, in every inbound event (`message.received`
 * and the changes): answer `replyTo`, never anything else.
 */
export const senderFields = {
  /** Best sender identifier: a LID is replaced by the phone JID when it could be resolved. */
  from: z.string().nullable(),
  /** The only correct `to` for a reply: the direct conversation, or the group. */
  replyTo: z.string().nullable(),
  /** Sender number, digits only, when known. */
  phoneNumber: z.string().nullable(),
  chat: z.string().nullable(),
  participant: z.string().nullable(),
  /** Sender identifier as received, before resolution (diagnostics). */
  rawFrom: z.string().nullable(),
  /** Conversation identifier as received (diagnostics). */
  rawChat: z.string().nullable(),
  pushName: z.string().nullable(),
};

export type SenderFields = z.output<z.ZodObject<typeof senderFields>>;

/** The network id of the message that carried the change, and when it was sent (ISO 8601). */
export const changeMessageFields = {
  id: z.string(),
  messageTimestamp: z.string(),
};

/** The sender fields of a received message, by libs/domain's reply-routing rules. */
export function inboundSender(message: InboundNetworkMessage): SenderFields {
  const resolved = resolvedSender(message);
  return {
    from: resolved ?? rawSender(message),
    replyTo: replyAddress(message),
    phoneNumber: senderPhoneNumber(resolved),
    chat: message.chat,
    participant: message.participant,
    rawFrom: message.participant ?? message.chat,
    rawChat: message.chat,
    pushName: message.pushName,
  };
}

/** The change fields of a received message that changes an earlier one. */
export function changeMessage(
  message: InboundNetworkMessage,
  now: Date,
): z.output<z.ZodObject<typeof changeMessageFields>> {
  return { id: message.id, messageTimestamp: sentAt(message, now) };
}
