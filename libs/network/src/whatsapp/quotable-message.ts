import { type InboundNetworkMessage, replyAddress } from '@jumbe/domain';
import { getContentType, normalizeMessageContent, proto, type WAMessage } from '@whiskeysockets/baileys';

/** What a reply needs of a message to quote it: who wrote it, where, and what it said. */
export interface QuotableMessage {
  id: string;
  /**
   * The chats (JIDs) a reply may quote it in: the chat it arrived in and, for a direct chat
   * addressed by LID, the phone JID the webhook told the customer to answer (`replyTo`).
   */
  chats: string[];
  fromMe: boolean;
  /** Its author as the network named them (group participant, or the direct chat); null for our own. */
  participant: string | null;
  /** Its content, reduced to what a quote carries. */
  message: proto.IMessage;
}

/** Largest quoted content kept; what a recipient's phone shows of a quote is a few lines anyway. */
export const MAX_QUOTED_BYTES = 64 * 1024;
/** Text of a quote cut to this many characters when the whole message would not fit. */
const QUOTED_TEXT_CHARS = 4_096;

/**
 * A received message as a reply can quote it, or null when it is nothing to quote (a reaction,
 * a deletion, an edit, an empty message). Pure: from Baileys' message and its mapped form.
 */
export function quotableOfReceived(raw: WAMessage, inbound: InboundNetworkMessage): QuotableMessage | null {
  if (inbound.change) return null;
  const message = quotedContent(raw.message);
  if (!message) return null;
  const replyTo = replyAddress(inbound);
  return {
    id: inbound.id,
    chats: replyTo && replyTo !== inbound.chat ? [inbound.chat, replyTo] : [inbound.chat],
    fromMe: false,
    participant: inbound.participant ?? inbound.chat,
    message,
  };
}

/** A message this session sent to `chat`, as a reply can quote it. */
export function quotableOfSent(id: string, chat: string, sent: proto.IMessage): QuotableMessage | null {
  const message = quotedContent(sent);
  return message ? { id, chats: [chat], fromMe: true, participant: null, message } : null;
}

/**
 * What Baileys' `quoted` option takes, for a reply sent to `to` (one of the message's chats):
 * keyed in that chat, so the quote is shown as one of this conversation, not of another chat.
 */
export function quotedFor(quotable: QuotableMessage, to: string): WAMessage {
  return {
    key: {
      remoteJid: to,
      id: quotable.id,
      fromMe: quotable.fromMe,
      ...(quotable.participant ? { participant: quotable.participant } : {}),
    },
    message: quotable.message,
  };
}

/**
 * The content as Baileys puts it into `contextInfo.quotedMessage`: unwrapped (view once,
 * ephemeral, …), its one content type only, without the quoted message's own context (what it
 * quoted, mentions). Bounded: thumbnails go first, then long text is cut.
 */
export function quotedContent(content: proto.IMessage | null | undefined): proto.IMessage | null {
  const inner = normalizeMessageContent(content);
  const type = inner ? getContentType(inner) : undefined;
  if (!inner || !type) return null;
  const value = inner[type];
  if (value === null || value === undefined) return null;
  const copy = proto.Message.decode(proto.Message.encode({ [type]: value }).finish());
  const part = copy[type] as unknown;
  if (part !== null && typeof part === 'object') delete (part as { contextInfo?: unknown }).contextInfo;
  return fitted(copy, type);
}

function fitted(message: proto.Message, type: keyof proto.IMessage): proto.IMessage | null {
  if (sizeOf(message) <= MAX_QUOTED_BYTES) return message;
  const part = message[type] as unknown as Record<string, unknown> | string;
  if (typeof part === 'object' && part !== null) delete part['jpegThumbnail'];
  if (sizeOf(message) <= MAX_QUOTED_BYTES) return message;
  if (typeof part === 'string') (message as unknown as Record<string, string>)[type] = cut(part);
  else if (part !== null) {
    for (const field of ['text', 'caption']) {
      if (typeof part[field] === 'string') part[field] = cut(part[field] as string);
    }
  }
  return sizeOf(message) <= MAX_QUOTED_BYTES ? message : null;
}

function cut(text: string): string {
  return text.length > QUOTED_TEXT_CHARS ? `${text.slice(0, QUOTED_TEXT_CHARS - 1)}…` : text;
}

function sizeOf(message: proto.IMessage): number {
  return proto.Message.encode(message).finish().length;
}

/** The sealed form's plaintext: JSON with the content as protobuf bytes (base64). */
export function encodeQuotable(quotable: QuotableMessage): Buffer {
  const { message, ...rest } = quotable;
  const bytes = Buffer.from(proto.Message.encode(message).finish()).toString('base64');
  return Buffer.from(JSON.stringify({ ...rest, message: bytes }), 'utf8');
}

export function decodeQuotable(bytes: Buffer): QuotableMessage {
  const stored = JSON.parse(bytes.toString('utf8')) as Omit<QuotableMessage, 'message'> & { message: string };
  return { ...stored, message: proto.Message.decode(Buffer.from(stored.message, 'base64')) };
}
