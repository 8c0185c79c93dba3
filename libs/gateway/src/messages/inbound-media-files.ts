import {
  ApiError,
  type InboundMediaFileView,
  MEDIA_DOWNLOAD_TIMEOUT_MS,
  type MediaObjectInfo,
} from '@jumbe/contracts';
import type { JumbeConfig } from '@jumbe/config';
import { Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { CONFIG } from '../gateway.tokens';
import { MediaFileReader } from '../ports/media-file-reader';
import { SessionCommandClient } from '../sessions/session-command.client';

export interface OpenedMediaFile {
  file: InboundMediaFileView;
  info: MediaObjectInfo;
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
      throw new ApiError(
        'unavailable',
        `The media store is unavailable: ${(error as Error).message}`,
        undefined,
        {
          'Retry-After': '2',
        },
      );
    });
    // Expired between the worker's answer and now (it hands out only files with time to live).
    if (!opened)
      throw new ApiError('unavailable', 'The media file left the store. Retry.', undefined, {
        'Retry-After': '1',
      });
    return { file, ...opened };
  }
}
