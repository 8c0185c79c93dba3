import type { MediaObjectInfo, MediaObjectMeta } from '@jumbe/contracts';
import { type NatsConnection, nanos, type ObjectInfo, type ObjectStore, StorageType } from 'nats';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { isFresh, type MediaObjectStore } from './media-object-store';

/**
 * MediaObjectStore on a JetStream Object Store bucket (created on first use, file storage) whose
 * `ttl` expires files by themselves. Files are chunked by the client, so their size is not
 * bounded by NATS's message size limit. The headers travel in the object's description (JSON):
 * per-object metadata needs NATS 2.10, the description works everywhere.
 */
export class JetStreamMediaStore implements MediaObjectStore {
  private opened: Promise<ObjectStore> | null = null;

  constructor(
    private readonly connection: NatsConnection,
    private readonly bucketName: string,
    private readonly ttlMs: number,
  ) {}

  /** The bucket, created on first use: processes that never touch a file never create it. */
  private bucket(): Promise<ObjectStore> {
    this.opened ??= this.connection
      .jetstream()
      .views.os(this.bucketName, { ttl: nanos(this.ttlMs), storage: StorageType.File, replicas: 1 })
      .catch((error: unknown) => {
        this.opened = null;
        throw error;
      });
    return this.opened;
  }

  /** Null too for a file close to expiry: its chunks expire before its description. */
  async info(name: string): Promise<MediaObjectInfo | null> {
    const info = await (await this.bucket()).info(name);
    if (!info || info.deleted) return null;
    const described = this.describe(info);
    return isFresh(described, this.ttlMs) ? described : null;
  }

  async put(name: string, meta: MediaObjectMeta, data: Readable): Promise<MediaObjectInfo> {
    const web = Readable.toWeb(data) as unknown as ReadableStream<Uint8Array>;
    const info = await (await this.bucket()).put({ name, description: JSON.stringify(meta) }, web);
    return this.describe(info);
  }

  async open(name: string): Promise<{ info: MediaObjectInfo; data: Readable } | null> {
    const result = await (await this.bucket()).get(name);
    if (!result || result.info.deleted) return null;
    const data = Readable.fromWeb(result.data as unknown as WebReadableStream<Uint8Array>);
    // A chunk that expired under the reader, or a digest that does not match, fails the stream.
    void result.error.then((error) => {
      if (error) data.destroy(error);
    });
    return { info: this.describe(result.info), data };
  }

  private describe(info: ObjectInfo): MediaObjectInfo {
    const meta = parseMeta(info.description);
    const storedAt = new Date(info.mtime);
    return { ...meta, size: info.size, storedAt: Number.isNaN(storedAt.getTime()) ? new Date(0) : storedAt };
  }
}

function parseMeta(description: string | undefined): MediaObjectMeta {
  try {
    const parsed = JSON.parse(description ?? '') as Partial<MediaObjectMeta>;
    return {
      mimetype: typeof parsed.mimetype === 'string' ? parsed.mimetype : 'application/octet-stream',
      fileName: typeof parsed.fileName === 'string' ? parsed.fileName : null,
    };
  } catch {
    return { mimetype: 'application/octet-stream', fileName: null };
  }
}
