import type { MediaObjectInfo, MediaObjectMeta } from '@jumbe/contracts';
import type { Readable } from 'node:stream';

/**
 * Where a worker puts an inbound media file it downloaded and a gateway reads it from, by name
 * (see mediaObjectName): JetStream's Object Store between processes, a folder of the data dir in
 * the all-in-one. Files expire by themselves after the store's time to live.
 */
export interface MediaObjectStore {
  /** The stored file's size and headers, or null when absent or expired. */
  info(name: string): Promise<MediaObjectInfo | null>;
  /** Stores `data` under `name` (replacing any earlier file); fails, storing nothing, if `data` fails. */
  put(name: string, meta: MediaObjectMeta, data: Readable): Promise<MediaObjectInfo>;
  /** The file to stream, or null when absent or expired. */
  open(name: string): Promise<{ info: MediaObjectInfo; data: Readable } | null>;
  /** Deletes the file (nothing when absent). */
  remove(name: string): Promise<void>;
}

/** A file younger than this margin before its expiry is handed out; an older one is fetched again. */
const EXPIRY_MARGIN_MS = 60 * 60 * 1000;

/** Whether a stored file has long enough to live to be streamed from the store. */
export function isFresh(info: MediaObjectInfo, ttlMs: number, now = Date.now()): boolean {
  return now - info.storedAt.getTime() < ttlMs - Math.min(EXPIRY_MARGIN_MS, ttlMs / 2);
}
