import type { InboundInteraction, InboundMedia } from './inbound-network-message';

/** The `message.received` webhook body (interface spec, Events), before the dispatcher adds its delivery id. */
export interface MessageReceivedEvent {
  event: 'message.received';
  /** When the event was created (ISO 8601). */
  timestamp: string;
  /** The account that owns the session and the webhook. */
  customerId: string;
  sessionId: string;
  message: ReceivedMessage;
}

/** The `message` object of a `message.received` event. */
export interface ReceivedMessage {
  id: string | null;
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
  /** Always false: the account's own messages are never emitted. */
  fromMe: false;
  pushName: string | null;
  type: string;
  text: string;
  interaction: InboundInteraction | null;
  media: InboundMedia | null;
  /** When the network says the original message was sent (ISO 8601). */
  messageTimestamp: string;
}
