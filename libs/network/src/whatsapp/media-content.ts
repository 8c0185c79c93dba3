import { EgressError, type HostResolver, safeDownload, UrlPolicy } from '@jumbe/egress';
import type { AnyMessageContent } from '@whiskeysockets/baileys';
import { NetworkSendError } from '../network-send-error';
import type { OutboundMedia, OutboundMediaType } from '../outbound-message';
import type { UploadedFiles } from './whatsapp-settings';
import { MediaBudgetExhaustedError, type MediaByteBudget, type MediaReservation } from './media-byte-budget';

export interface MediaFetchSettings {
  allowPrivateNetworks: boolean;
  /** Larger files fail with `media_fetch_failed` (WhatsApp's own limits are lower for most types). */
  maxBytes: number;
  timeoutMs: number;
  /** Tests pass a fake resolver; defaults to the system's. */
  resolver?: HostResolver;
  /**
   * The worker's bytes of media in flight: `maxBytes` is reserved before the download (the size is
   * not known before), cut to the file's size once it is in, and held until `release()`. With no
   * room within `waitMs`, the send fails `media_busy`.
   */
  budget?: { bytes: MediaByteBudget; waitMs: number };
}

export interface FetchedMedia {
  body: Buffer;
  contentType: string | undefined;
  /** Gives the file's bytes back to the worker's budget: call once the send is over. */
  release(): void;
}

const DEFAULT_MIMETYPE: Record<OutboundMediaType, string> = {
  image: 'image/jpeg',
  video: 'video/mp4',
  audio: 'audio/mpeg',
  document: 'application/octet-stream',
  sticker: 'image/webp',
};

/** What WhatsApp plays as a voice note: Opus in Ogg (other audio is sent, but may not play inline). */
const VOICE_NOTE_MIMETYPE = 'audio/ogg; codecs=opus';

/**
 * Downloads a customer's media URL for sending. Baileys is never given the URL: it would open any
 * non-http(s) `{ url }` as a local file, and its own download has no address policy. Instead the
 * URL must be http(s), pass the public-address policy now, and is fetched through safeDownload,
 * whose connect-time guard also stops DNS rebinding, with a size limit and a deadline.
 */
export async function fetchMedia(url: string, settings: MediaFetchSettings): Promise<FetchedMedia> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new NetworkSendError('media_fetch_failed', 'the media URL is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new NetworkSendError('media_fetch_failed', 'the media URL must be http or https');
  }
  const policy = new UrlPolicy({
    allowPrivateNetworks: settings.allowPrivateNetworks,
    resolver: settings.resolver,
  });
  const verdict = await policy.check(url);
  if (!verdict.ok)
    throw new NetworkSendError('media_fetch_failed', `the media URL was refused: ${verdict.reason}`);
  const reservation = await reserve(settings);
  try {
    const result = await safeDownload(url, {
      maxBytes: settings.maxBytes,
      timeoutMs: settings.timeoutMs,
      allowPrivateNetworks: settings.allowPrivateNetworks,
      resolver: settings.resolver,
    });
    if (result.body.length === 0)
      throw new NetworkSendError('media_fetch_failed', 'the media URL returned an empty file');
    reservation?.shrinkTo(result.body.length);
    return { body: result.body, contentType: result.contentType, release: () => reservation?.release() };
  } catch (error) {
    reservation?.release();
    if (error instanceof NetworkSendError) throw error;
    const reason = error instanceof EgressError ? error.message : 'the download failed';
    throw new NetworkSendError('media_fetch_failed', `could not fetch the media: ${reason}`);
  }
}

/** The send's share of the worker's media budget, or null when there is no budget. */
async function reserve(
  settings: Pick<MediaFetchSettings, 'budget' | 'maxBytes'>,
): Promise<MediaReservation | null> {
  if (!settings.budget) return null;
  try {
    return await settings.budget.bytes.reserve(settings.maxBytes, settings.budget.waitMs);
  } catch (error) {
    if (!(error instanceof MediaBudgetExhaustedError)) throw error;
    throw new NetworkSendError(
      'media_busy',
      `the worker is sending as much media as it may hold at once (${error.message}); the message was not sent, retry shortly`,
    );
  }
}

/**
 * Reads a file the customer uploaded (the gateway stored it; no URL, nothing fetched) within the
 * worker's budget: its size is reserved before the read, as a download reserves its limit.
 */
export async function readUpload(
  upload: { name: string; size: number },
  files: UploadedFiles | undefined,
  settings: Pick<MediaFetchSettings, 'budget'>,
): Promise<FetchedMedia> {
  const opened = await files?.open(upload.name);
  if (!opened) {
    throw new NetworkSendError(
      'media_fetch_failed',
      'the uploaded file is no longer stored (uploads expire after an hour); upload it again',
    );
  }
  const reservation = await reserve({ ...settings, maxBytes: upload.size });
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of opened.data) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (body.length !== upload.size) throw new Error(`read ${body.length} of ${upload.size} bytes`);
    return { body, contentType: undefined, release: () => reservation?.release() };
  } catch (error) {
    reservation?.release();
    throw new NetworkSendError(
      'media_fetch_failed',
      `could not read the uploaded file: ${(error as Error).message}`,
    );
  }
}

/** What Baileys sends for a downloaded file: always a Buffer, never a URL or a path. */
export function mediaMessageContent(message: OutboundMedia, media: FetchedMedia): AnyMessageContent {
  const mimetype = message.mimetype ?? usableContentType(media.contentType) ?? DEFAULT_MIMETYPE[message.type];
  const caption = message.caption || undefined;
  switch (message.type) {
    case 'image':
      return { image: media.body, mimetype, ...(caption ? { caption } : {}) };
    case 'video':
      return { video: media.body, mimetype, ...(caption ? { caption } : {}) };
    case 'audio':
      // WhatsApp shows no caption on audio; it is not sent.
      return message.ptt
        ? { audio: media.body, mimetype: message.mimetype ?? VOICE_NOTE_MIMETYPE, ptt: true }
        : { audio: media.body, mimetype, ptt: false };
    case 'sticker':
      return { sticker: media.body, mimetype: 'image/webp' };
    case 'document':
      return {
        document: media.body,
        mimetype,
        fileName: message.fileName ?? message.upload?.fileName ?? fileNameFromUrl(message.url ?? ''),
        ...(caption ? { caption } : {}),
      };
  }
}

/** A server's Content-Type, unless it is the meaningless default. */
function usableContentType(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const value = contentType.trim();
  if (value === '' || value.startsWith('application/octet-stream') || value.startsWith('text/html')) {
    return undefined;
  }
  return value;
}

/** The last path segment of the URL, decoded; `file` when there is none. */
export function fileNameFromUrl(url: string): string {
  try {
    const segment = new URL(url).pathname.split('/').filter(Boolean).pop();
    const name = segment ? decodeURIComponent(segment) : '';
    return name.trim() || 'file';
  } catch {
    return 'file';
  }
}
