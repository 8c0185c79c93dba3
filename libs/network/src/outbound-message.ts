import type { InteractiveAction } from '@jumbe/contracts';

/**
 * A reply: the id of a message of the same chat (`to`) to quote, one this session sent or
 * received. A driver that has no record of it in that chat refuses the send (`message_not_found`).
 */
export interface Quoting {
  quotedMessageId?: string;
}

/**
 * The messages a session sends, already validated by the gateway; `to` is always a JID. One
 * discriminated union, so adding a message kind means one member here and one case per driver.
 */
export interface OutboundText extends Quoting {
  kind: 'text';
  to: string;
  text: string;
}

export type OutboundMediaType = 'image' | 'video' | 'audio' | 'document' | 'sticker';

export interface OutboundMedia extends Quoting {
  kind: 'media';
  to: string;
  /** http(s) URL the driver fetches the file from. */
  url: string;
  type: OutboundMediaType;
  caption?: string;
  mimetype?: string;
  fileName?: string;
  /** Audio sent as a voice note. */
  ptt?: boolean;
}

export interface OutboundInteractive extends Quoting {
  kind: 'interactive';
  to: string;
  text: string;
  title?: string;
  footer?: string;
  /** Contract actions; each driver renders them for its network. */
  actions: InteractiveAction[];
}

export interface OutboundLocation extends Quoting {
  kind: 'location';
  to: string;
  latitude: number;
  longitude: number;
  name?: string;
  address?: string;
}

export interface OutboundContact extends Quoting {
  kind: 'contact';
  to: string;
  /** Shared as contact cards (vCards the driver builds). */
  contacts: { name: string; phoneNumber: string }[];
}

export interface OutboundReaction {
  kind: 'reaction';
  /** The chat of the message reacted to. */
  to: string;
  messageId: string;
  /** One emoji; '' removes the session's reaction. */
  emoji: string;
}

/** Deletes, for everyone, a message this session sent to `to`. */
export interface OutboundRevoke {
  kind: 'revoke';
  to: string;
  messageId: string;
}

/** Replaces the text of a message this session sent to `to`. */
export interface OutboundEdit {
  kind: 'edit';
  to: string;
  messageId: string;
  text: string;
}

export type OutboundMessage =
  | OutboundText
  | OutboundMedia
  | OutboundInteractive
  | OutboundLocation
  | OutboundContact
  | OutboundReaction
  | OutboundRevoke
  | OutboundEdit;
