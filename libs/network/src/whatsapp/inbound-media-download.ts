import {
  downloadContentFromMessage,
  getContentType,
  type MediaType,
  type proto,
} from '@whiskeysockets/baileys';
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { Dispatcher } from 'undici';
import { type InboundMediaFile, MediaDownloadError, type MediaDownloadLimits } from '../inbound-media-file';
import type { MediaFields } from './inbound-media-archive';

export interface MediaDownloadSettings {
  /** WhatsApp's `mmg.whatsapp.net` but in tests; the download is HTTPS with certificates checked either way. */
  host: string;
  /** How long WhatsApp's media server may take to start answering. */
  timeoutMs: number;
  /** The session's own proxy (docs/session-proxy.md): the download goes through it. */
  dispatcher?: Dispatcher;
}

const DEFAULT_MIMETYPES: Record<string, string> = {
  imageMessage: 'image/jpeg',
  videoMessage: 'video/mp4',
  ptvMessage: 'video/mp4',
  audioMessage: 'audio/ogg; codecs=opus',
  documentMessage: 'application/octet-stream',
  stickerMessage: 'image/webp',
};

/**
 * Downloads and decrypts the file a descriptor (see InboundMediaArchive) points to, with Baileys'
 * own downloadContentFromMessage. The URL is always `https://<host><directPath>`: the host never
 * comes from the message (a contact could otherwise make the worker fetch any address). The
 * plaintext is checked against the descriptor's SHA-256 as it streams; a mismatch fails the
 * stream, so a corrupted or altered file is never stored.
 */
export async function downloadInboundMedia(
  descriptor: proto.IMessage,
  limits: MediaDownloadLimits,
  settings: MediaDownloadSettings,
): Promise<InboundMediaFile> {
  const type = getContentType(descriptor);
  const media = type ? (descriptor[type] as MediaFields | null | undefined) : undefined;
  const directPath = media?.directPath || pathOfWhatsAppUrl(media?.url);
  if (!type || !media?.mediaKey || !directPath) {
    throw new MediaDownloadError('media_not_found', 'The message carries no file WhatsApp can serve.');
  }
  const declared = media.fileLength == null ? null : Number(media.fileLength.toString());
  if (declared !== null && declared > limits.maxBytes) {
    throw new MediaDownloadError(
      'media_too_large',
      `The file has ${declared} bytes; at most ${limits.maxBytes} are downloaded.`,
    );
  }
  const mediaType = type.replace('Message', '') as MediaType;
  const decrypted = await withTimeout(
    downloadContentFromMessage({ mediaKey: media.mediaKey, directPath, url: undefined }, mediaType, {
      host: settings.host,
      ...(settings.dispatcher
        ? { options: { dispatcher: settings.dispatcher } as unknown as RequestInit }
        : {}),
    }),
    settings.timeoutMs,
  ).catch((error: unknown) => {
    throw downloadError(error);
  });
  const data = media.fileSha256?.length
    ? decrypted.pipe(new Sha256Check(Buffer.from(media.fileSha256)))
    : decrypted;
  if (data !== decrypted) decrypted.on('error', (error) => data.destroy(error));
  return {
    mimetype: media.mimetype || DEFAULT_MIMETYPES[type] || 'application/octet-stream',
    fileName: media.fileName || null,
    size: declared,
    data,
  };
}

/** A media server that says the file is gone (404, 410) means WhatsApp no longer keeps it. */
function downloadError(error: unknown): MediaDownloadError {
  const status = (error as { output?: { statusCode?: number } }).output?.statusCode;
  if (status === 404 || status === 410) {
    return new MediaDownloadError('media_expired', "WhatsApp's media server no longer has the file.");
  }
  const reason = status ? `status ${status}` : (error as Error).message;
  return new MediaDownloadError(
    'media_download_failed',
    `WhatsApp's media server did not serve the file (${reason}).`,
  );
}

/** Older messages carry only a full URL: its path, when it is WhatsApp's (never its host). */
function pathOfWhatsAppUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && parsed.hostname.endsWith('.whatsapp.net')
      ? `${parsed.pathname}${parsed.search}`
      : null;
  } catch {
    return null;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Passes the bytes through; fails at the end when their SHA-256 is not the expected one. */
class Sha256Check extends Transform {
  private readonly hash = createHash('sha256');

  constructor(private readonly expected: Buffer) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    const actual = this.hash.digest();
    callback(
      actual.equals(this.expected) ? null : new Error('the downloaded file does not match its SHA-256'),
    );
  }
}
