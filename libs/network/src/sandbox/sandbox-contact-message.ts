import {
  type InboundChange,
  type InboundMediaType,
  type InboundNetworkMessage,
  USER_DOMAIN,
} from '@jumbe/domain';
import { lidUserFor, newInboundMessageId } from './sandbox-ids';

/** What a simulated contact sends (CONTRACT §9, `POST /sandbox/inbound` without `sessionId`). */
export interface SandboxContactMessage {
  /** The sender's number, digits only (a `…@s.whatsapp.net` JID is accepted too). */
  from: string;
  pushName?: string | null;
  text?: string | null;
  /** Makes it a group message; `participant` overrides the sender identifier as received. */
  group?: { id: string; participant?: string | null } | null;
  /** The sender arrives under a LID, which the sandbox resolves to `from`. */
  lid?: boolean | null;
  media?: {
    type: InboundMediaType;
    mimetype?: string | null;
    fileName?: string | null;
    caption?: string | null;
    seconds?: number | null;
    /** The file itself, base64: the sandbox's media servers keep it for GET /messages/media. */
    data?: string | null;
  } | null;
  interaction?: { type: string; id?: string | null; label?: string | null } | null;
  /** Instead of saying something, the message changes an earlier one (at most one of these). */
  reaction?: { messageId: string; emoji: string } | null;
  revoke?: { messageId: string } | null;
  edit?: { messageId: string; text: string } | null;
  /** Instead of a message, a vote on a poll the session sent: the whole choice, by option text. */
  pollVote?: { pollId: string; options: string[] } | null;
}

// A real network always reports a MIME type; these are what phones send by default.
const DEFAULT_MIMETYPES: Record<InboundMediaType, string> = {
  image: 'image/jpeg',
  video: 'video/mp4',
  audio: 'audio/ogg; codecs=opus',
  document: 'application/octet-stream',
  sticker: 'image/webp',
};

/** The message as the network delivers it to the session's device. */
export function contactMessageToInbound(input: SandboxContactMessage, now: Date): InboundNetworkMessage {
  const phoneJid = input.from.includes('@') ? input.from : `${input.from}@${USER_DOMAIN}`;
  const lidJid = `${lidUserFor(phoneJid.split('@', 1)[0] ?? input.from)}@lid`;
  const senderAsReceived = input.lid ? lidJid : phoneJid;

  const chat = input.group ? groupJid(input.group.id) : senderAsReceived;
  const participant = input.group ? (input.group.participant ?? senderAsReceived) : null;
  const rawSender = participant ?? chat;
  // The sandbox knows every LID it handed out, so a LID sender always resolves.
  const senderPhoneJid = rawSender.endsWith('@lid') ? phoneJid : null;

  const media = input.media
    ? {
        type: input.media.type,
        mimetype: input.media.mimetype ?? DEFAULT_MIMETYPES[input.media.type],
        fileName: input.media.fileName ?? null,
        caption: input.media.caption ?? null,
        seconds: input.media.seconds ?? null,
      }
    : null;
  const interaction = input.interaction
    ? {
        type: input.interaction.type,
        id: input.interaction.id ?? null,
        label: input.interaction.label ?? null,
      }
    : null;

  let type = 'conversation';
  let text = input.text ?? '';
  if (interaction) {
    type = 'interactiveResponseMessage';
    text = interaction.id ?? text;
  } else if (media) {
    type = `${media.type}Message`;
    text = input.text ?? media.caption ?? '';
  }

  const change = changeOf(input);
  if (change) {
    type = change.kind === 'reaction' ? 'reactionMessage' : 'protocolMessage';
    text = '';
  }

  return {
    id: newInboundMessageId(),
    chat,
    participant,
    senderPhoneJid,
    fromMe: false,
    pushName: input.pushName ?? null,
    type,
    text,
    interaction: change ? null : interaction,
    media: change ? null : media,
    // The network's clock has whole seconds.
    timestamp: new Date(Math.floor(now.getTime() / 1000) * 1000),
    ...(change ? { change } : {}),
  };
}

/** What the message changes, as WhatsApp carries it: a reaction, or a protocol message (revoke, edit). */
function changeOf(input: SandboxContactMessage): InboundChange | null {
  if (input.reaction) return { kind: 'reaction', ...input.reaction };
  if (input.revoke) return { kind: 'revoke', messageId: input.revoke.messageId };
  if (input.edit) return { kind: 'edit', ...input.edit };
  return null;
}

function groupJid(id: string): string {
  return id.includes('@') ? id : `${id}@g.us`;
}
