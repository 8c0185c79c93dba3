import { inboundMediaBinding, type SecretBox } from '@jumbe/domain';
import { getContentType, normalizeMessageContent, proto, type WAMessage } from '@whiskeysockets/baileys';
import type { Logger } from 'pino';
import { MediaDownloadError } from '../inbound-media-file';
import type { SessionRef } from '../session-ref';
import type { InboundMediaStore } from './inbound-media-store';
import type { ArchivedMedia } from './inbound-media-reupload';

/**
 * Marks a sealed record that keeps the message key with the descriptor (a `WebMessageInfo`, for a
 * re-upload request); older records are a bare `Message` (never starting with 0: no field 0).
 */
const WITH_KEY = 0;

/** The media contents whose file `GET /messages/media` serves (what `message.received` calls media). */
const DOWNLOADABLE = new Set([
  'imageMessage',
  'videoMessage',
  'ptvMessage',
  'audioMessage',
  'documentMessage',
  'stickerMessage',
]);

/**
 * How to download the file of each media message the sessions receive: the media message's
 * descriptor (WhatsApp's media key, path, size and hashes; no thumbnail, no caption) sealed
 * (AES-256-GCM, like the credentials) into the durable store when the message arrives, and opened
 * again when the file is asked for, by any worker that owns the session then.
 */
export class InboundMediaArchive {
  constructor(
    private readonly store: InboundMediaStore,
    private readonly cipher: SecretBox,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /** Keeps the descriptor of a received media message; anything else is ignored. Never throws. */
  async remember(ref: SessionRef, message: WAMessage): Promise<void> {
    const id = message.key?.id;
    const descriptor = descriptorOf(message.message);
    if (!id || !descriptor) return;
    try {
      const { remoteJid, fromMe, participant } = message.key;
      const envelope = proto.WebMessageInfo.encode({
        key: { remoteJid, fromMe, id, participant },
        message: descriptor,
      }).finish();
      const bytes = Buffer.concat([Buffer.from([WITH_KEY]), envelope]);
      await this.store.save(ref, id, this.cipher.sealBytes(bytes, inboundMediaBinding(ref, id)));
    } catch (error) {
      this.logger.warn({ err: error, messageId: id }, 'could not keep how to download a received media file');
    }
  }

  /** The descriptor kept for the message, with its key; MediaDownloadError when unknown or expired. */
  async open(ref: SessionRef, messageId: string): Promise<ArchivedMedia> {
    const stored = await this.store.find(ref, messageId);
    if (!stored) {
      throw new MediaDownloadError(
        'media_not_found',
        `The session received no media file with id ${messageId}.`,
      );
    }
    if (stored.expired) {
      throw new MediaDownloadError(
        'media_expired',
        `The media file of ${messageId} arrived more than 7 days ago.`,
      );
    }
    const bytes = this.cipher.openBytes(stored.value, inboundMediaBinding(ref, messageId));
    if (bytes[0] !== WITH_KEY) return { key: { id: messageId }, message: proto.Message.decode(bytes) };
    const kept = proto.WebMessageInfo.decode(bytes.subarray(1));
    return { key: kept.key ?? { id: messageId }, message: kept.message ?? {} };
  }
}

/**
 * The media content of a message (view-once, ephemeral and document-with-caption wrappers
 * unwrapped) reduced to what a download needs, or null when it carries no downloadable file.
 */
export function descriptorOf(content: proto.IMessage | null | undefined): proto.IMessage | null {
  const normalized = normalizeMessageContent(content);
  const type = normalized ? getContentType(normalized) : undefined;
  if (!normalized || !type || !DOWNLOADABLE.has(type)) return null;
  const media = normalized[type] as MediaFields | null | undefined;
  if (!media?.mediaKey || !(media.directPath || media.url)) return null;
  const kept: MediaFields = {
    url: media.url,
    directPath: media.directPath,
    mediaKey: media.mediaKey,
    mimetype: media.mimetype,
    fileName: media.fileName,
    fileLength: media.fileLength,
    fileSha256: media.fileSha256,
    fileEncSha256: media.fileEncSha256,
  };
  return proto.Message.fromObject({ [type]: kept });
}

/** The fields every downloadable media message shares (the generated types have no common base). */
export interface MediaFields {
  url?: string | null;
  directPath?: string | null;
  mediaKey?: Uint8Array | null;
  mimetype?: string | null;
  fileName?: string | null;
  fileLength?: number | Long | null;
  fileSha256?: Uint8Array | null;
  fileEncSha256?: Uint8Array | null;
}

type Long = { toString(): string };
