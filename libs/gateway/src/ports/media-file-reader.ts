import type { MediaObjectInfo } from '@jumbe/contracts';
import type { Readable } from 'node:stream';

/**
 * Where the gateway reads the received media files workers downloaded: JetStream's Object Store,
 * or the all-in-one's data dir (MediaObjectStore of @jumbe/messaging).
 */
export abstract class MediaFileReader {
  /** The file to stream, or null when it is absent or expired. */
  abstract open(name: string): Promise<{ info: MediaObjectInfo; data: Readable } | null>;
}
