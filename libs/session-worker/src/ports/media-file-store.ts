import type { MediaObjectInfo, MediaObjectMeta } from '@jumbe/contracts';
import type { Readable } from 'node:stream';

/**
 * Where the worker puts the received media files it downloads, for the gateway to stream:
 * JetStream's Object Store, or the all-in-one's data dir (MediaObjectStore of @jumbe/messaging).
 */
export interface MediaFileStore {
  /** The stored file, or null when absent or close to expiry. */
  info(name: string): Promise<MediaObjectInfo | null>;
  put(name: string, meta: MediaObjectMeta, data: Readable): Promise<MediaObjectInfo>;
}
