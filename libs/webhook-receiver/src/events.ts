// The event bodies a Jumbe webhook receives (interface spec, Events). Declared here, not imported,
// so this package stands alone.

/** Fields every event carries. */
export interface WebhookEventBase {
  /** Event type, also sent as `X-Service-Event`. */
  event: string;
  /** Equal to the `X-Service-Delivery` header; inside the body so the signature covers it. */
  deliveryId: string;
  /** When the event was created (ISO 8601). */
  timestamp: string;
  /** The account that owns the session and the webhook. */
  customerId: string;
  /** The session that produced the event. Reply through this session. */
  sessionId: string;
}

export interface WebhookInteraction {
  /** `quick_reply`, `list`, `single_select`, … */
  type: string;
  /** The reply-button or list-row id given when the message was sent. Route on this. */
  id: string | null;
  /** Display label. Never a command id. */
  label: string | null;
}

export interface WebhookMedia {
  type: 'image' | 'video' | 'audio' | 'document' | 'sticker';
  mimetype: string | null;
  fileName: string | null;
  caption: string | null;
  seconds: number | null;
}

/** Who sent a received message, a reaction, a deletion or an edit, and where a reply goes. */
export interface WebhookSender {
  from: string | null;
  /** The `to` of a reply: the direct conversation, or the group. */
  replyTo: string | null;
  phoneNumber: string | null;
  chat: string | null;
  participant: string | null;
  rawFrom: string | null;
  rawChat: string | null;
  pushName: string | null;
}

export interface ReceivedMessage extends WebhookSender {
  /** Network message id. */
  id: string | null;
  fromMe: false;
  /** `conversation`, `extendedTextMessage`, `imageMessage`, `interactiveResponseMessage`, … */
  type: string;
  /** Text, selected id, or caption; `''` when there is none. */
  text: string;
  interaction: WebhookInteraction | null;
  media: WebhookMedia | null;
  messageTimestamp: string;
}

export interface MessageReceivedEvent extends WebhookEventBase {
  event: 'message.received';
  message: ReceivedMessage;
}

/** A contact reacted to a message (opt-in: subscribe to `message.reaction`). */
export interface MessageReactionEvent extends WebhookEventBase {
  event: 'message.reaction';
  reaction: WebhookReaction;
}

/** A received message that changes an earlier one: its own id and time, and the message it changes. */
export interface WebhookChange extends WebhookSender {
  /** Network id of the message that carried the change (the reaction, deletion or edit itself). */
  id: string;
  messageTimestamp: string;
  /** The message reacted to, deleted or edited. */
  messageId: string;
}

export interface WebhookReaction extends WebhookChange {
  /** `''` when the reaction was removed. */
  emoji: string;
}

/** A contact deleted a message for everyone (opt-in: subscribe to `message.revoked`). */
export interface MessageRevokedEvent extends WebhookEventBase {
  event: 'message.revoked';
  revoked: WebhookRevocation;
}

export type WebhookRevocation = WebhookChange;

/** A contact edited a message (opt-in: subscribe to `message.edited`). */
export interface MessageEditedEvent extends WebhookEventBase {
  event: 'message.edited';
  edited: WebhookEdit;
}

export interface WebhookEdit extends WebhookChange {
  /** Its new text. */
  text: string;
}

/** A contact voted on a poll this session sent (opt-in: subscribe to `message.poll_vote`). */
export interface MessagePollVoteEvent extends WebhookEventBase {
  event: 'message.poll_vote';
  vote: {
    /** The network id of the message that carried the vote. */
    id: string;
    /** The poll voted on: the `data.key.id` its send returned. */
    pollId: string;
    /** The chat the poll is in (a contact's or a group's JID). */
    chat: string;
    /** The voter's number (digits) when WhatsApp gives it, else their id. */
    from: string;
    /** Where a reply to the voter goes: use it as `to`. */
    replyTo: string;
    /** The voter's whole choice now, by option text (empty: the vote was taken back). */
    selectedOptions: string[];
    /** When the voter voted (ISO 8601). */
    votedAt: string;
  };
}

/** A status of a message sent through the API (opt-in: subscribe to `message.status`). */
export interface MessageStatusEvent extends WebhookEventBase {
  event: 'message.status';
  message: {
    /** The id the send returned (`key.id`). */
    id: string;
    /** The chat it was sent to (`key.remoteJid` of the send). */
    to: string;
    /** Each step once, however many devices report it. */
    status: 'server_ack' | 'delivered' | 'read' | 'played' | 'failed';
    /** When the network reported it (ISO 8601). */
    at: string;
  };
}

/** Someone called the number (opt-in: subscribe to `call.received`). */
export interface CallReceivedEvent extends WebhookEventBase {
  event: 'call.received';
  call: {
    /** WhatsApp's id of the call. */
    id: string;
    /** The caller's number (digits) when WhatsApp gives it, else their id. */
    from: string;
    /** Where a reply goes: use it as `to`. */
    replyTo: string;
    video: boolean;
    group: boolean;
    groupId: string | null;
    /** When the call was offered (ISO 8601). */
    offeredAt: string;
    /** The session rejected it by itself (`PUT /session/calls`). */
    rejected: boolean;
  };
}

/** A session's state changed (opt-in: subscribe to `session.status`). Never carries a QR value. */
export interface SessionStatusEvent extends WebhookEventBase {
  event: 'session.status';
  session: {
    state: 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
    /** Digits only, while linked to a number. */
    phoneNumber: string | null;
    /** Why it is `disconnected` (`logged_out`, `qr_timeout`, …); null otherwise. */
    reason: string | null;
  };
}

/**
 * Members of a group the session's number is in were added, removed (or left), promoted or
 * demoted, by the session or anyone else (opt-in: subscribe to `group.participants`).
 */
export interface GroupParticipantsEvent extends WebhookEventBase {
  event: 'group.participants';
  group: {
    /** `120363…@g.us`. */
    id: string;
    action: 'add' | 'remove' | 'promote' | 'demote';
    /** `…@s.whatsapp.net`, or `…@lid` in a group that hides numbers. */
    participants: string[];
    /** Who made the change, when known. */
    author: string | null;
  };
}

/**
 * A group the session's number is in changed its subject, description or settings, or its invite
 * link was revoked (opt-in: subscribe to `group.updated`). Only what changed is present.
 */
export interface GroupUpdatedEvent extends WebhookEventBase {
  event: 'group.updated';
  group: {
    id: string;
    subject?: string | undefined;
    /** null: the description was removed. */
    description?: string | null | undefined;
    announcementOnly?: boolean | undefined;
    locked?: boolean | undefined;
    inviteRevoked?: boolean | undefined;
    author: string | null;
  };
}

export interface WebhookTestEvent extends WebhookEventBase {
  event: 'webhook.test';
  data: { message: string };
}

/** Every event Jumbe sends. */
export type WebhookEvent =
  | MessageReceivedEvent
  | MessageStatusEvent
  | MessageReactionEvent
  | MessageRevokedEvent
  | MessageEditedEvent
  | MessagePollVoteEvent
  | SessionStatusEvent
  | CallReceivedEvent
  | GroupParticipantsEvent
  | GroupUpdatedEvent
  | WebhookTestEvent;
