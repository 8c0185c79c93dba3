import type { MediaObjectInfo, MediaObjectMeta } from '@jumbe/contracts';
import type { Readable } from 'node:stream';

/**
 * Where the gateway streams a file a customer uploads to send (multipart `POST /messages/media`)
 * for the worker to read: JetStream's Object Store, or the all-in-one's data dir
 * (MediaObjectStore of @jumbe/messaging, the uploads bucket). Files expire by themselves.
 */
export abstract class UploadStore {
  /** Stores `data` under `name`; fails, storing nothing, if `data` fails. */
  abstract put(name: string, meta: MediaObjectMeta, data: Readable): Promise<MediaObjectInfo>;
  /** Deletes the file (nothing when absent). */
  abstract remove(name: string): Promise<void>;
}
