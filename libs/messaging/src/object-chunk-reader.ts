import type { ObjectInfo } from 'nats';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

/**
 * JetStream's direct get of the next message on a subject. nats.js's manager has it (`direct`),
 * though the interface it exports does not list it yet.
 */
export interface DirectGet {
  getMessage(
    stream: string,
    query: { seq: number; next_by_subj: string },
  ): Promise<{ seq: number; data: Uint8Array }>;
}

/**
 * The bytes of one Object Store object, read chunk by chunk with JetStream's direct get: one
 * request per chunk, asked for only when the reader wants more. The client library's own `get`
 * creates an ordered push consumer per read, which pushes the whole file into memory whether or
 * not anyone reads it and lingers on the server until NATS reaps it (issue 29: one consumer per
 * download); this creates nothing on the server, so an abandoned read leaves nothing behind.
 * The SHA-256 the writer recorded is checked at the end; a chunk that expired under the reader,
 * or a digest that does not match, fails the stream.
 */
export class ObjectChunkReader extends Readable {
  private nextSequence = 1;
  private received = 0;
  private readonly hash = createHash('sha256');
  private readonly subject: string;

  constructor(
    private readonly direct: DirectGet,
    private readonly stream: string,
    bucket: string,
    private readonly info: ObjectInfo,
  ) {
    super();
    this.subject = `$O.${bucket}.C.${info.nuid}`;
  }

  override _read(): void {
    if (this.received >= this.info.size) {
      this.finish();
      return;
    }
    this.direct.getMessage(this.stream, { seq: this.nextSequence, next_by_subj: this.subject }).then(
      (chunk) => {
        if (this.destroyed) return;
        this.nextSequence = chunk.seq + 1;
        // An empty chunk carries nothing to push (pushing one would stall the stream): read on.
        if (chunk.data.length === 0) return this._read();
        this.received += chunk.data.length;
        this.hash.update(chunk.data);
        this.push(Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength));
      },
      (error: unknown) =>
        this.destroy(new Error(`media object: a chunk could not be read (${String(error)})`)),
    );
  }

  private finish(): void {
    const expected = this.info.digest.replace(/^SHA-256=/, '');
    const actual = this.hash.digest('base64url');
    if (this.received !== this.info.size || unpadded(expected) !== actual) {
      this.destroy(new Error('media object: its bytes do not match the digest the writer recorded'));
      return;
    }
    this.push(null);
  }
}

/** Base64url without padding; standard base64 (older writers) is accepted too. */
function unpadded(digest: string): string {
  return digest.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}
