import type { OutboundOf } from '@jumbe/contracts';

/**
 * The messages a session sends are the contract's one union (`OutboundMessage` in
 * @jumbe/contracts): `{ kind, to, … }`, validated by the gateway; the worker has made `to` a JID.
 * Each driver maps every kind to its network once. The names below are the members the drivers'
 * helpers take; any other is `OutboundOf<'kind'>`.
 */
export type { OutboundMessage } from '@jumbe/contracts';

/**
 * A reply: the id of a message of the same chat (`to`) to quote, one this session sent or
 * received. A driver that has no record of it in that chat refuses the send (`message_not_found`).
 */
export interface Quoting {
  quotedMessageId?: string | undefined;
}

export type OutboundText = OutboundOf<'text'>;
export type OutboundMedia = OutboundOf<'media'>;
export type OutboundMediaType = OutboundMedia['type'];
export type OutboundInteractive = OutboundOf<'interactive'>;
export type OutboundContact = OutboundOf<'contact'>;
export type OutboundReaction = OutboundOf<'reaction'>;
/** Deletes, for everyone, a message this session sent to `to`. */
export type OutboundRevoke = OutboundOf<'revoke'>;
/** Replaces the text of a message this session sent to `to`. */
export type OutboundEdit = OutboundOf<'edit'>;
/** A status post (story): no `to`; it goes to status@broadcast, seen by its `contacts`. */
export type OutboundStatus = OutboundOf<'status'>;
