import type { proto, WAMessage } from '@whiskeysockets/baileys';
import { type InboundMediaFile, MediaDownloadError } from '../inbound-media-file';

/** A received media message as the archive keeps it: its key (chat, sender) and its file's descriptor. */
export interface ArchivedMedia {
  readonly key: proto.IMessageKey;
  readonly message: proto.IMessage;
}

/** Asks the account's phone to upload the file again (Baileys' `updateMediaMessage`); null when the session is not connected. */
export type MediaReupload = ((message: WAMessage) => Promise<WAMessage>) | null;

/**
 * Downloads a received media file; when WhatsApp's CDN no longer has it (404/410: its copies
 * expire, the phone keeps the file), asks the phone to upload it again through the session's
 * connection, as WhatsApp clients do, and downloads the new copy from the direct path the phone
 * answered. Without a connected session, or when the phone cannot, it stays `media_expired`.
 */
export async function downloadWithReupload(
  archived: ArchivedMedia,
  download: (descriptor: proto.IMessage) => Promise<InboundMediaFile>,
  reupload: MediaReupload,
  timeoutMs: number,
): Promise<InboundMediaFile> {
  try {
    return await download(archived.message);
  } catch (error) {
    if (!isExpired(error) || !reupload || !archived.key.remoteJid) throw error;
    const asked: WAMessage = { key: { ...archived.key }, message: copyOfDescriptor(archived.message) };
    const refreshed = await withTimeout(reupload(asked), timeoutMs).catch(() => {
      throw new MediaDownloadError(
        'media_expired',
        "WhatsApp's media server no longer has the file, and the phone did not upload it again.",
      );
    });
    return download(refreshed.message ?? asked.message ?? archived.message);
  }
}

function isExpired(error: unknown): boolean {
  return error instanceof MediaDownloadError && error.code === 'media_expired';
}

/** Baileys rewrites the media's `directPath` and `url` in place: never in the archived copy. */
function copyOfDescriptor(message: proto.IMessage): proto.IMessage {
  const type = Object.keys(message).find((field) => field.endsWith('Message'));
  if (!type) return { ...message };
  return { ...message, [type]: { ...(message as Record<string, object>)[type] } };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no re-upload within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
