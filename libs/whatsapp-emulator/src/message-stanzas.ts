import { type BinaryNode, proto, unpadRandomMax16, writeRandomPadMax16 } from '@whiskeysockets/baileys';
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { SignalMessageType } from './signal-party';

/** A message id in the style phones use (hex, upper case). */
export function newMessageId(): string {
  return `3A${randomBytes(9).toString('hex').toUpperCase()}`;
}

/** A message's plaintext as Signal carries it: the proto, padded with 1–16 bytes. */
export function paddedMessage(message: proto.IMessage): Buffer {
  return writeRandomPadMax16(proto.Message.encode(message).finish());
}

export function unpaddedMessage(plaintext: Uint8Array): proto.Message {
  return proto.Message.decode(unpadRandomMax16(plaintext));
}

/** The stanza `type` WhatsApp gives a message (`media` for attachments, `text` otherwise). */
export function stanzaType(message: proto.IMessage): string {
  const media =
    message.imageMessage ??
    message.videoMessage ??
    message.audioMessage ??
    message.documentMessage ??
    message.stickerMessage;
  return media ? 'media' : 'text';
}

export interface InboundStanza {
  readonly id: string;
  /** The sender's JID as the device sees it (PN or LID). */
  readonly from: string;
  /** Extra attributes: `sender_pn` / `sender_lid`, `participant`, `category`, `offline`... */
  readonly attrs?: Record<string, string>;
  readonly pushName?: string;
  readonly type: string;
  readonly enc: { type: SignalMessageType | 'skmsg'; ciphertext: Buffer };
  /** Other `enc` nodes (a group's sender key message follows its distribution message). */
  readonly extraEnc?: { type: SignalMessageType | 'skmsg'; ciphertext: Buffer }[];
}

/** The `<message>` a device receives: one encrypted payload for that device. */
export function inboundMessageStanza(stanza: InboundStanza): BinaryNode {
  const encs = [stanza.enc, ...(stanza.extraEnc ?? [])].map((enc) => ({
    tag: 'enc',
    attrs: { v: '2', type: enc.type },
    content: enc.ciphertext,
  }));
  return {
    tag: 'message',
    attrs: {
      from: stanza.from,
      id: stanza.id,
      t: String(Math.floor(Date.now() / 1000)),
      type: stanza.type,
      ...(stanza.pushName ? { notify: stanza.pushName } : {}),
      ...stanza.attrs,
    },
    content: encs,
  };
}

/**
 * What a phone sends a newly linked device first: the initial history bootstrap, inline (empty:
 * the emulated account has no chats). Baileys waits for it (up to 20 s) before it emits events.
 */
export function initialHistoryBootstrap(): proto.IMessage {
  const history = proto.HistorySync.encode({
    syncType: proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
    conversations: [],
    pushnames: [],
  }).finish();
  return {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
      historySyncNotification: {
        syncType: proto.Message.HistorySyncType.INITIAL_BOOTSTRAP,
        initialHistBootstrapInlinePayload: deflateSync(history),
      },
    },
  };
}
