import {
  ApiError,
  type InboundMediaFileView,
  MEDIA_DOWNLOAD_TIMEOUT_MS,
  type MediaObjectInfo,
} from '@jumbe/contracts';
import type { JumbeConfig } from '@jumbe/config';
import { Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { CONFIG, LOGGER } from '../gateway.tokens';
import { MediaFileReader } from '../ports/media-file-reader';
import { SessionCommandClient } from '../sessions/session-command.client';
import { mediaResponseHeaders } from './media-headers';

export interface OpenedMediaFile {
  file: InboundMediaFileView;
  info: MediaObjectInfo;
  /** Every header the file is served with, decided before the answer starts. */
  headers: Record<string, string>;
  /** Open: whoever gets it must send it or destroy it (a file descriptor or a NATS consumer). */
  data: Readable;
}

/**
 * `GET /messages/media`: asks the worker that owns the session to put the file into the media
 * store (it downloads it unless it is there already), then opens it there for streaming.
 */
@Injectable()
export class InboundMediaFiles {
  constructor(
    private readonly commands: SessionCommandClient,
    private readonly files: MediaFileReader,
    @Inject(CONFIG) private readonly config: JumbeConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async open(
    accountId: string,
    sessionId: string,
    messageId: string,
    requestId?: string,
  ): Promise<OpenedMediaFile> {
    const file = await this.commands.send(
      { type: 'media.fetch', accountId, sessionId, messageId },
      requestId,
      // A download may take longer than a command: the worker gives up after its own deadline.
      { timeoutMs: this.config.commandTimeoutMs + MEDIA_DOWNLOAD_TIMEOUT_MS },
    );
    const opened = await this.files.open(file.object).catch((error: unknown) => {
      // The cause (EMFILE, ENOENT…) names server paths: it is logged, never answered.
      this.logger.warn({ err: error, requestId }, 'media store could not open a file');
      throw new ApiError('unavailable', 'The media store is unavailable. Retry.', undefined, {
        'Retry-After': '2',
      });
    });
    // Expired between the worker's answer and now (it hands out only files with time to live).
    if (!opened)
      throw new ApiError('unavailable', 'The media file left the store. Retry.', undefined, {
        'Retry-After': '1',
      });
    try {
      return { file, ...opened, headers: mediaResponseHeaders(opened.info, messageId) };
    } catch (error) {
      // Nothing after the open may leave it open: the stream holds a descriptor or a consumer.
      opened.data.destroy();
      throw error;
    }
  }
}
