import { ApiError, type InboundMediaFileView, mediaObjectName, type MediaObjectInfo } from '@jumbe/contracts';
import {
  type InboundMediaFile,
  MediaDownloadError,
  type NetworkDriver,
  type SessionRef,
} from '@jumbe/network';
import { wellFormedText } from '@jumbe/domain';
import { Transform, type TransformCallback } from 'node:stream';
import type { Logger } from 'pino';
import type { MediaFileStore } from './ports/media-file-store';

export interface MediaFetcherOptions {
  /** JUMBE_MEDIA_MAX_BYTES: a larger file is refused (422 `media_too_large`), even mid-download. */
  maxBytes: number;
  /** JUMBE_MEDIA_DOWNLOADS: downloads at once on this worker; one more is 503 `media_busy`. */
  concurrency: number;
  /** A download and its store write must be over within this (else 502). */
  timeoutMs: number;
}

/**
 * `media.fetch`: puts the file of a received media message into the media store and answers
 * with its name there, for the gateway to stream (bus messages have a size limit, files do not).
 * A file already stored is not downloaded again; two requests for one file share one download.
 */
export class MediaFetcher {
  private active = 0;
  private readonly inFlight = new Map<string, Promise<InboundMediaFileView>>();

  constructor(
    private readonly driver: Pick<NetworkDriver, 'downloadMedia'>,
    private readonly store: MediaFileStore,
    private readonly options: MediaFetcherOptions,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  fetch(ref: SessionRef, messageId: string): Promise<InboundMediaFileView> {
    const object = mediaObjectName(ref, messageId);
    const running = this.inFlight.get(object);
    if (running) return running;
    const fetching = this.fetchOnce(ref, messageId, object).finally(() => this.inFlight.delete(object));
    this.inFlight.set(object, fetching);
    return fetching;
  }

  private async fetchOnce(ref: SessionRef, messageId: string, object: string): Promise<InboundMediaFileView> {
    const stored = await this.store.info(object).catch((error: unknown) => this.storeUnavailable(error));
    if (stored) return view(object, stored);
    if (this.active >= this.options.concurrency) {
      throw new ApiError(
        'media_busy',
        `This worker is downloading ${this.options.concurrency} media files already. Retry in a moment.`,
        undefined,
        { 'Retry-After': '1' },
      );
    }
    this.active += 1;
    try {
      const file = await this.download(ref, messageId);
      return view(object, await this.keep(object, file));
    } finally {
      this.active -= 1;
    }
  }

  private async download(ref: SessionRef, messageId: string): Promise<InboundMediaFile> {
    try {
      return await this.driver.downloadMedia(ref, messageId, { maxBytes: this.options.maxBytes });
    } catch (error) {
      if (error instanceof MediaDownloadError) throw new ApiError(error.code, error.message);
      this.logger.warn({ err: error, messageId }, 'media download failed');
      throw new ApiError('media_download_failed');
    }
  }

  /** Streams the file into the store, within the size cap and the deadline. */
  private async keep(object: string, file: InboundMediaFile): Promise<MediaObjectInfo> {
    const limit = new ByteLimit(this.options.maxBytes);
    // The store may not be reading yet when the cap is passed; its put fails either way.
    limit.on('error', () => undefined);
    let sourceFailure: Error | null = null;
    file.data.on('error', (error) => {
      sourceFailure = error;
      limit.destroy(error);
    });
    const timer = setTimeout(
      () => file.data.destroy(new Error(`not downloaded within ${this.options.timeoutMs} ms`)),
      this.options.timeoutMs,
    );
    try {
      // What the sender's phone said, made well-formed once: the gateway builds headers from it.
      return await this.store.put(
        object,
        {
          mimetype: wellFormedText(file.mimetype),
          fileName: file.fileName === null ? null : wellFormedText(file.fileName),
        },
        file.data.pipe(limit),
      );
    } catch (error) {
      if (limit.exceeded) {
        throw new ApiError('media_too_large', `The file has more than ${this.options.maxBytes} bytes.`);
      }
      if (sourceFailure) {
        this.logger.warn({ err: sourceFailure }, 'media download failed while streaming');
        throw new ApiError('media_download_failed');
      }
      return this.storeUnavailable(error);
    } finally {
      clearTimeout(timer);
      file.data.destroy();
    }
  }

  /** The cause (EMFILE, ENOSPC, a NATS error) may name server paths: logged here, never answered. */
  private storeUnavailable(error: unknown): never {
    this.logger.warn({ err: error }, 'media store unavailable');
    throw new ApiError('unavailable', 'The media store is unavailable. Retry.', undefined, {
      'Retry-After': '2',
    });
  }
}

function view(object: string, info: MediaObjectInfo): InboundMediaFileView {
  return { object, mimetype: info.mimetype, fileName: info.fileName, size: info.size };
}

/** Passes bytes through until more than `max` went by, then fails. */
class ByteLimit extends Transform {
  private seen = 0;
  exceeded = false;

  constructor(private readonly max: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.max) {
      this.exceeded = true;
      callback(new Error('media file over the size cap'));
      return;
    }
    callback(null, chunk);
  }
}
