import { ApiError } from '@jumbe/contracts';
import type { FastifyRequest } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { UploadStore } from '../ports/upload-store';
import { displayableFileName } from './media-headers';

/** The form's text fields: as many as the JSON body has, each as long as a caption may be, and then some. */
const MAX_FIELDS = 16;
const MAX_FIELD_BYTES = 8 * 1024;

/** A MIME type as the contract's `mimetype` field takes it. */
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+(;.*)?$/;

/** A file the gateway streamed into the upload store, and the form's text fields. */
export interface ReceivedUpload {
  fields: Record<string, string>;
  /** The store's name for the file, its size, its SHA-256 (hex) and what the part said of it. */
  name: string;
  size: number;
  sha256: string;
  /** The part's Content-Type, unless missing, malformed or `application/octet-stream`. */
  mimetype: string | undefined;
  fileName: string | undefined;
}

/** A multipart request as @fastify/multipart decorates it. */
type MultipartRequest = FastifyRequest & {
  parts(options: { limits: Record<string, number> }): AsyncIterableIterator<MultipartPart>;
};

type MultipartPart =
  | { type: 'field'; fieldname: string; value: unknown; valueTruncated: boolean }
  | {
      type: 'file';
      fieldname: string;
      filename: string;
      mimetype: string;
      file: NodeJS.ReadableStream & { resume(): void };
    };

/**
 * Reads a multipart media send (`POST /messages/media` with a `file` part): text fields as the
 * JSON body's, one `file` part streamed straight into the upload store, never held whole in
 * memory. A file over `maxBytes` stops the read at once: 413 `payload_too_large`, and the
 * connection is closed rather than read to its end. Whatever was stored is removed on any failure.
 */
export async function readMediaUpload(
  request: FastifyRequest,
  store: UploadStore,
  maxBytes: number,
  /** Filled with the text fields as they are read: what a refusal is logged with. */
  fields: Record<string, string> = {},
): Promise<ReceivedUpload> {
  let stored: Omit<ReceivedUpload, 'fields'> | null = null;
  try {
    const parts = (request as MultipartRequest).parts({
      // One byte over the limit is how a file is known to be too large; a second file part is refused.
      limits: { fileSize: maxBytes + 1, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: 32 },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        addField(fields, part.fieldname, part.value, part.valueTruncated);
        continue;
      }
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw invalid(`/${part.fieldname}`, 'the file goes in a part named "file"');
      }
      stored = await storeFile(part, store, maxBytes, () => stopReading(request));
    }
    if (!stored) throw invalid('/file', 'a multipart media send needs a "file" part with the file');
    return { fields, ...stored };
  } catch (error) {
    const refusal = asApiError(error, maxBytes);
    // Beyond the limit the body is not read on: the answer goes out with `Connection: close`.
    if (refusal instanceof ApiError && refusal.code === 'payload_too_large') stopReading(request);
    if (stored) await store.remove(stored.name).catch(() => undefined);
    throw refusal;
  }
}

/** Stops taking bytes off the socket: the parser would otherwise drain the rest of the body. */
function stopReading(request: FastifyRequest): void {
  request.raw.unpipe();
  request.raw.pause();
}

async function storeFile(
  part: Extract<MultipartPart, { type: 'file' }>,
  store: UploadStore,
  maxBytes: number,
  onTooLarge: () => void,
): Promise<Omit<ReceivedUpload, 'fields'>> {
  const name = randomBytes(32).toString('hex');
  const meter = new UploadMeter(maxBytes, onTooLarge);
  // The contract's limit is 255 UTF-16 units; the display rules count characters.
  const fileName = displayableFileName(part.filename ?? '').slice(0, 255) || undefined;
  const mimetype = usableMimetype(part.mimetype);
  try {
    await store.put(
      name,
      { mimetype: mimetype ?? 'application/octet-stream', fileName: fileName ?? null },
      part.file.pipe(meter),
    );
  } catch (error) {
    await store.remove(name).catch(() => undefined);
    throw meter.tooLarge ? new UploadTooLargeError() : error;
  }
  if (meter.tooLarge) {
    await store.remove(name).catch(() => undefined);
    throw new UploadTooLargeError();
  }
  if (meter.size === 0) {
    await store.remove(name).catch(() => undefined);
    throw invalid('/file', 'the file is empty');
  }
  return { name, size: meter.size, sha256: meter.digest(), mimetype, fileName };
}

function addField(fields: Record<string, string>, name: string, value: unknown, truncated: boolean): void {
  if (truncated) throw invalid(`/${name}`, `a field may hold at most ${MAX_FIELD_BYTES} bytes`);
  if (name === 'file') throw invalid('/file', 'the "file" part must be a file (filename="…")');
  if (Object.hasOwn(fields, name)) throw invalid(`/${name}`, 'the field is given twice');
  fields[name] = typeof value === 'string' ? value : String(value);
}

/** The part's type, unless it says nothing (`application/octet-stream`) or is malformed. */
function usableMimetype(mimetype: string | undefined): string | undefined {
  const value = (mimetype ?? '').trim();
  if (!MIME_TYPE.test(value) || value.toLowerCase().startsWith('application/octet-stream')) return undefined;
  return value;
}

class UploadTooLargeError extends Error {}

/** Counts and hashes the file's bytes on their way to the store; fails past the limit. */
class UploadMeter extends Transform {
  size = 0;
  tooLarge = false;
  private readonly hash = createHash('sha256');

  constructor(
    private readonly maxBytes: number,
    private readonly onTooLarge: () => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.tooLarge = true;
      // At once, before the store has cleaned up: the socket delivers hundreds of MiB a second.
      this.onTooLarge();
      done(new UploadTooLargeError());
      return;
    }
    this.hash.update(chunk);
    done(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

function invalid(path: string, problem: string): ApiError {
  return new ApiError('validation_error', `Invalid request body: ${path}: ${problem}`, [{ path, problem }]);
}

/** The multipart library's refusals as the contract's errors. */
function asApiError(error: unknown, maxBytes: number): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof UploadTooLargeError) {
    return new ApiError('payload_too_large', `The file is larger than the limit of ${maxBytes} bytes.`);
  }
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'FST_FILES_LIMIT':
      return invalid('/file', 'send one file per message: there is more than one file part');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return invalid('/', `too many form fields (at most ${MAX_FIELDS})`);
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError('payload_too_large', `The file is larger than the limit of ${maxBytes} bytes.`);
    case 'FST_PROTO_VIOLATION':
      return invalid('/', 'a field name is not allowed');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new ApiError('unsupported_media_type', 'The body is not multipart/form-data.');
  }
  if (error instanceof Error && /multipart|boundary|terminated early|Unexpected end/i.test(error.message)) {
    return invalid('/', `the multipart body is malformed (${error.message})`);
  }
  return error;
}
