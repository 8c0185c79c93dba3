import type { MediaObjectInfo, MediaObjectMeta } from '@jumbe/contracts';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isFresh, type MediaObjectStore } from './media-object-store';

/** Names are mediaObjectName's hex digests: nothing else is ever a path here. */
const NAME = /^[0-9a-f]{64}$/;

/**
 * MediaObjectStore in a folder (the all-in-one's `JUMBE_DATA_DIR/media`): `<name>` holds the
 * file, `<name>.json` its headers. A file is written under a temporary name and renamed, so a
 * reader never sees half of one; files older than the time to live are deleted at each put.
 */
export class DataDirMediaStore implements MediaObjectStore {
  constructor(
    private readonly dir: string,
    private readonly ttlMs: number,
  ) {}

  async info(name: string): Promise<MediaObjectInfo | null> {
    const info = await this.read(name);
    return info && isFresh(info, this.ttlMs) ? info : null;
  }

  async put(name: string, meta: MediaObjectMeta, data: Readable): Promise<MediaObjectInfo> {
    checkName(name);
    // An error before the pipeline below listens must not go unhandled; the pipeline sees it.
    data.on('error', () => undefined);
    await mkdir(this.dir, { recursive: true });
    await this.sweep();
    const partial = join(this.dir, `${name}.${randomBytes(6).toString('hex')}.part`);
    try {
      await pipeline(data, createWriteStream(partial, { mode: 0o600 }));
      const { size } = await stat(partial);
      await writeFile(join(this.dir, `${name}.json`), JSON.stringify(meta), { mode: 0o600 });
      await rename(partial, join(this.dir, name));
      return { ...meta, size, storedAt: new Date() };
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  async open(name: string): Promise<{ info: MediaObjectInfo; data: Readable } | null> {
    const info = await this.read(name);
    if (!info || Date.now() - info.storedAt.getTime() >= this.ttlMs) return null;
    return { info, data: createReadStream(join(this.dir, name)) };
  }

  async remove(name: string): Promise<void> {
    checkName(name);
    await rm(join(this.dir, name), { force: true });
    await rm(join(this.dir, `${name}.json`), { force: true });
  }

  private async read(name: string): Promise<MediaObjectInfo | null> {
    checkName(name);
    try {
      const [file, meta] = await Promise.all([
        stat(join(this.dir, name)),
        readFile(join(this.dir, `${name}.json`), 'utf8'),
      ]);
      const parsed = JSON.parse(meta) as MediaObjectMeta;
      return { mimetype: parsed.mimetype, fileName: parsed.fileName, size: file.size, storedAt: file.mtime };
    } catch {
      return null;
    }
  }

  /** Deletes expired files and leftovers of interrupted writes. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const entry of await readdir(this.dir)) {
      const path = join(this.dir, entry);
      const modified = await stat(path).then(
        (s) => s.mtimeMs,
        () => now,
      );
      if (now - modified >= this.ttlMs) await rm(path, { force: true });
    }
  }
}

function checkName(name: string): void {
  if (!NAME.test(name)) throw new RangeError('not a media object name');
}
