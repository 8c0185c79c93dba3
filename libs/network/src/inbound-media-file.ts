import type { Readable } from 'node:stream';

/** The file of a media message a session received, as the network hands it over. */
export interface InboundMediaFile {
  mimetype: string;
  /** The sender's file name (documents); null when the network has none. */
  fileName: string | null;
  /** The size the network declares, or null when unknown; the stream is what counts. */
  size: number | null;
  /** The decrypted bytes; fails if the download or its integrity check fails. */
  data: Readable;
}

export interface MediaDownloadLimits {
  /** A file declared larger than this is refused before it is downloaded (`media_too_large`). */
  maxBytes: number;
}

export type MediaDownloadErrorCode =
  'media_not_found' | 'media_expired' | 'media_too_large' | 'media_download_failed';

/** Why a received media file cannot be had; `code` is the API's error code. */
export class MediaDownloadError extends Error {
  constructor(
    readonly code: MediaDownloadErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'MediaDownloadError';
  }
}
