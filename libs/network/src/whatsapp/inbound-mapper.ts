import type {
  InboundChange,
  InboundInteraction,
  InboundMedia,
  InboundMediaType,
  InboundNetworkMessage,
} from '@jumbe/domain';
import {
  getContentType,
  jidDecode,
  jidNormalizedUser,
  normalizeMessageContent,
  proto,
  type WAMessage,
} from '@whiskeysockets/baileys';

const STATUS_BROADCAST = 'status@broadcast';

/**
 * Content types that carry no user message: key distribution, protocol messages, reactions, poll
 * votes, pins. They are never `message.received`; reactions, deletions and edits become changes
 * (changeOf) instead.
 */
const PROTOCOL_ONLY = new Set<string>([
  'protocolMessage',
  'senderKeyDistributionMessage',
  'messageContextInfo',
  'reactionMessage',
  'encReactionMessage',
  'pollUpdateMessage',
  'keepInChatMessage',
  'pinInChatMessage',
  'callLogMesssage',
  'peerDataOperationRequestMessage',
  'peerDataOperationRequestResponseMessage',
  'botInvokeMessage',
]);

const MEDIA_TYPES: Record<string, InboundMediaType> = {
  imageMessage: 'image',
  videoMessage: 'video',
  ptvMessage: 'video',
  audioMessage: 'audio',
  documentMessage: 'document',
  stickerMessage: 'sticker',
};

/**
 * Who sent the message, as a phone-number JID, when the network addressed it by LID: Baileys 7
 * gives the phone form in `remoteJidAlt`/`participantAlt` when it has it; otherwise the LID
 * mapping store is asked. Null when the sender is not a LID or cannot be resolved.
 */
export async function resolveSenderPhoneJid(
  message: WAMessage,
  lookupPn: (lid: string) => Promise<string | null>,
): Promise<string | null> {
  const key = message.key;
  const inGroup = (key.remoteJid ?? '').endsWith('@g.us');
  const sender = inGroup ? (key.participant ?? message.participant) : key.remoteJid;
  if (!sender || !isAnyLid(sender)) return null;
  const alt = phoneJidOf(inGroup ? key.participantAlt : key.remoteJidAlt);
  if (alt) return alt;
  try {
    // Baileys' mapping store is keyed by the LID's user part, but its lookup only accepts `@lid`:
    // a hosted LID (`@hosted.lid`, numbers on WhatsApp's hosted business platform) is asked for
    // by the same user part.
    return phoneJidOf(await lookupPn(`${jidDecode(sender)?.user ?? ''}@lid`));
  } catch {
    return null;
  }
}

function isAnyLid(jid: string): boolean {
  return jid.endsWith('@lid') || jid.endsWith('@hosted.lid');
}

/** A phone-number JID (`…@s.whatsapp.net`, or a hosted `…@hosted`) as `<digits>@s.whatsapp.net`. */
function phoneJidOf(jid: string | null | undefined): string | null {
  if (!jid) return null;
  if (jid.endsWith('@s.whatsapp.net')) return jidNormalizedUser(jid);
  const user = jid.endsWith('@hosted') ? jidDecode(jid)?.user : undefined;
  return user ? `${user}@s.whatsapp.net` : null;
}

/**
 * Baileys' WAMessage in our terms, or null when it is not forwarded: the account's own messages,
 * status updates, stubs and protocol-only messages. View-once, ephemeral and document-with-caption
 * wrappers are unwrapped first. Pure; LID resolution happens before (resolveSenderPhoneJid).
 */
export function toInboundMessage(
  message: WAMessage,
  senderPhoneJid: string | null,
): InboundNetworkMessage | null {
  const key = message.key;
  const chat = key.remoteJid;
  if (!chat || !key.id || key.fromMe || chat === STATUS_BROADCAST) return null;
  const content = normalizeMessageContent(message.message);
  const type = content ? getContentType(content) : undefined;
  if (!content || !type) return null;

  const inGroup = chat.endsWith('@g.us');
  const sender = {
    id: key.id,
    chat,
    participant: inGroup ? (key.participant ?? message.participant ?? null) : null,
    senderPhoneJid,
    fromMe: false,
    pushName: message.pushName ?? null,
    type,
    timestamp: timestampOf(message.messageTimestamp),
  };
  if (PROTOCOL_ONLY.has(type)) {
    const change = changeOf(content);
    return change ? { ...sender, text: '', interaction: null, media: null, change } : null;
  }
  const media = mediaOf(type, content);
  const interaction = interactionOf(content);
  return {
    ...sender,
    text: interaction ? (interaction.id ?? interaction.label ?? '') : textOf(content, media),
    interaction,
    media,
  };
}

/**
 * A reaction (an empty `text` removes it), a delete-for-everyone (`protocolMessage` REVOKE) or an
 * edit (`protocolMessage` MESSAGE_EDIT, which Baileys has already unwrapped from `editedMessage`),
 * with the id of the message it is about; null for every other protocol-only content.
 */
function changeOf(content: proto.IMessage): InboundChange | null {
  const reaction = content.reactionMessage;
  if (reaction) {
    const messageId = reaction.key?.id;
    return messageId ? { kind: 'reaction', messageId, emoji: reaction.text ?? '' } : null;
  }
  const protocol = content.protocolMessage;
  const messageId = protocol?.key?.id;
  if (!protocol || !messageId) return null;
  if (protocol.type === proto.Message.ProtocolMessage.Type.REVOKE) return { kind: 'revoke', messageId };
  if (protocol.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT) {
    const edited = normalizeMessageContent(protocol.editedMessage);
    const text = edited ? textOf(edited, mediaOf(getContentType(edited) ?? '', edited)) : '';
    return { kind: 'edit', messageId, text };
  }
  return null;
}

function textOf(content: proto.IMessage, media: InboundMedia | null): string {
  return (
    content.conversation ??
    content.extendedTextMessage?.text ??
    media?.caption ??
    content.locationMessage?.name ??
    content.contactMessage?.displayName ??
    ''
  );
}

function mediaOf(type: string, content: proto.IMessage): InboundMedia | null {
  const mediaType = MEDIA_TYPES[type];
  if (!mediaType) return null;
  const item = content[type as keyof proto.IMessage] as {
    mimetype?: string | null;
    fileName?: string | null;
    caption?: string | null;
    seconds?: number | null;
  };
  return {
    type: mediaType,
    mimetype: item.mimetype || null,
    fileName: item.fileName || null,
    caption: item.caption || null,
    seconds: typeof item.seconds === 'number' ? item.seconds : null,
  };
}

/** A tapped quick reply, list row or native-flow answer; `id` is what the sender's app routes on. */
function interactionOf(content: proto.IMessage): InboundInteraction | null {
  const buttons = content.buttonsResponseMessage;
  if (buttons) {
    return {
      type: 'quick_reply',
      id: buttons.selectedButtonId || null,
      label: buttons.selectedDisplayText || null,
    };
  }
  const template = content.templateButtonReplyMessage;
  if (template) {
    return {
      type: 'quick_reply',
      id: template.selectedId || null,
      label: template.selectedDisplayText || null,
    };
  }
  const list = content.listResponseMessage;
  if (list) {
    return {
      type: 'list',
      id: list.singleSelectReply?.selectedRowId || null,
      label: list.title || list.description || null,
    };
  }
  const response = content.interactiveResponseMessage;
  if (response) {
    const flow = response.nativeFlowResponseMessage;
    const params = parseParams(flow?.paramsJson);
    const id =
      stringField(params, 'id') ?? stringField(params, 'selectedRowId') ?? stringField(params, 'row_id');
    const label =
      stringField(params, 'display_text') ?? stringField(params, 'title') ?? (response.body?.text || null);
    return { type: flow?.name || 'native_flow', id, label };
  }
  return null;
}

function parseParams(json: string | null | undefined): Record<string, unknown> {
  if (!json) return {};
  try {
    const parsed: unknown = JSON.parse(json);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function stringField(params: Record<string, unknown>, name: string): string | null {
  const value = params[name];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return null;
}

/** `messageTimestamp` is seconds, as a number or a protobuf Long; an invalid one yields an invalid Date. */
function timestampOf(value: WAMessage['messageTimestamp']): Date {
  if (value === null || value === undefined) return new Date(Number.NaN);
  const seconds = typeof value === 'number' ? value : Number(value.toString());
  return new Date(seconds * 1000);
}
