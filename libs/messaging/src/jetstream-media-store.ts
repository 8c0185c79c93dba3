import type { MediaObjectInfo, MediaObjectMeta } from '@jumbe/contracts';
import {
  type JetStreamManager,
  type NatsConnection,
  nanos,
  type ObjectInfo,
  type ObjectStore,
  StorageType,
} from 'nats';
import { Readable } from 'node:stream';
import { isFresh, type MediaObjectStore } from './media-object-store';
import { type DirectGet, ObjectChunkReader } from './object-chunk-reader';

/**
 * MediaObjectStore on a JetStream Object Store bucket (created on first use, file storage) whose
 * `ttl` expires files by themselves. Files are chunked by the client, so their size is not
 * bounded by NATS's message size limit. The headers travel in the object's description (JSON):
 * per-object metadata needs NATS 2.10, the description works everywhere.
 */
export class JetStreamMediaStore implements MediaObjectStore {
  private opened: Promise<ObjectStore> | null = null;
  private manager: Promise<JetStreamManager> | null = null;

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
    const web = pacedByFlush(data, () => this.connection.flush());
    const info = await (await this.bucket()).put({ name, description: JSON.stringify(meta) }, web);
    return this.describe(info);
  }

  /**
   * The file's bytes are read on demand with direct gets (ObjectChunkReader), not with the
   * client's `get`, which opens a consumer per read: nothing stays on the server when the reader
   * stops early or never starts.
   */
  async open(name: string): Promise<{ info: MediaObjectInfo; data: Readable } | null> {
    const info = await (await this.bucket()).info(name);
    if (!info || info.deleted) return null;
    this.manager ??= this.connection.jetstreamManager().catch((error: unknown) => {
      this.manager = null;
      throw error;
    });
    const { direct } = (await this.manager) as JetStreamManager & { direct?: DirectGet };
    if (!direct) throw new Error('this NATS client has no direct get');
    const data = new ObjectChunkReader(direct, `OBJ_${this.bucketName}`, this.bucketName, info);
    return { info: this.describe(info), data };
  }

  async remove(name: string): Promise<void> {
    await (await this.bucket()).delete(name);
  }

  private describe(info: ObjectInfo): MediaObjectInfo {
    const meta = parseMeta(info.description);
    const storedAt = new Date(info.mtime);
    return { ...meta, size: info.size, storedAt: Number.isNaN(storedAt.getTime()) ? new Date(0) : storedAt };
  }
}

/** Bytes read from the source between two waits for the server to have everything sent so far. */
const FLUSH_EVERY_BYTES = 1024 * 1024;

/**
 * The source as the web stream the client's `put` reads, paced by the connection. The client
 * publishes each chunk as soon as it reads it, without waiting for acknowledgements, so a source
 * faster than the link (an upload arriving over a LAN) would pile up in the client's outbound
 * buffer, the whole file in memory. Every FLUSH_EVERY_BYTES, reading waits for a round trip to the
 * server (`flush`): at most about that much is ever waiting to leave.
 */
function pacedByFlush(data: Readable, flush: () => Promise<void>): ReadableStream<Uint8Array> {
  const chunks = data[Symbol.asyncIterator]();
  let sinceFlush = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sinceFlush >= FLUSH_EVERY_BYTES) {
        sinceFlush = 0;
        await flush();
      }
      const next = (await chunks.next()) as IteratorResult<Buffer>;
      if (next.done) {
        controller.close();
        return;
      }
      sinceFlush += next.value.length;
      controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
    },
    async cancel() {
      await chunks.return?.();
    },
  });
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
