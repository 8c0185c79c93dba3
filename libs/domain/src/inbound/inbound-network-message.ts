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
}

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
