/**
 * One received message as a network driver hands it up, already translated into our terms: the
 * driver knows the network library, the rest of the system only knows this shape.
 */
export interface InboundNetworkMessage {
  /** Network message id; the webhook's `message.id` and the de-duplication key downstream. */
  id: string;
  /** Raw conversation JID: `2547…@s.whatsapp.net`, `1234…@lid`, `1203…@g.us`, `…@newsletter`. */
  chat: string;
  /** Group sender JID exactly as received (may be a LID); null in direct chats. */
  participant: string | null;
  /** The sender as `<digits>@s.whatsapp.net` when the driver resolved a LID; null otherwise. */
  senderPhoneJid: string | null;
  fromMe: boolean;
  pushName: string | null;
  /** Network content type: `conversation`, `extendedTextMessage`, `imageMessage`, `interactiveResponseMessage`, … */
  type: string;
  /** Extracted text (or caption, or selected id); empty string when there is none. */
  text: string;
  interaction: InboundInteraction | null;
  media: InboundMedia | null;
  /** When the network says the message was sent. */
  timestamp: Date;
  /**
   * Set when the message changes an earlier one instead of saying something: a reaction to it,
   * its deletion for everyone, or a new text for it. Such a message is never `message.received`.
   */
  change?: InboundChange;
}

/** How a received message changes an earlier message of the chat (`messageId`). */
export type InboundChange =
  /** An emoji on the message; `''` takes the sender's reaction away. */
  | { kind: 'reaction'; messageId: string; emoji: string }
  /** The sender deleted the message for everyone. */
  | { kind: 'revoke'; messageId: string }
  /** The sender edited the message's text (or caption). */
  | { kind: 'edit'; messageId: string; text: string };

/** A selected quick reply, list row or flow answer. */
export interface InboundInteraction {
  /** `quick_reply`, `list`, `single_select`, … */
  type: string;
  /** The action or row id given when the message was sent: what bots route on. */
  id: string | null;
  /** Display label; never a command id. */
  label: string | null;
}

export type InboundMediaType = 'image' | 'video' | 'audio' | 'document' | 'sticker';

/** Media metadata only: the file itself never travels with the event. */
export interface InboundMedia {
  type: InboundMediaType;
  mimetype: string | null;
  fileName: string | null;
  caption: string | null;
  /** Duration of audio or video. */
  seconds: number | null;
}
