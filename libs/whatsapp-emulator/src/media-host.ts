import type { BinaryNode } from '@whiskeysockets/baileys';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MEDIA_HOST_CERT, MEDIA_HOST_KEY } from './media-certificate';

/** An encrypted file a device uploaded, as the CDN keeps it. */
export interface UploadedMedia {
  /** `/mms/image`, `/mms/audio`... (the upload path names the kind, not the message). */
  readonly uploadPath: string;
  /** What the device put in its message's `directPath` (the query string included). */
  readonly directPath: string;
  /** The encrypted file (ciphertext followed by the 10-byte MAC), exactly as uploaded. */
  readonly body: Buffer;
}

/** Large enough for every test file; Baileys reads the limit from `media_conn` but does not enforce it. */
const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

/**
 * WhatsApp's media CDN, as far as a linked device uses it to send: the `media_conn` answer (one
 * host, an upload token, a TTL) and the HTTPS upload of an encrypted file to
 * `https://<host>/mms/<kind>/<file enc sha256>?auth=&token=`, answered with the file's `url` and
 * `direct_path`. A phone then downloads the file by its direct path (`fetch`). The certificate is
 * the emulator's (media-certificate.ts), trusted only by processes that load the trust preload.
 */
export class EmulatedMediaHost {
  /** Every upload, oldest first. */
  readonly uploads: UploadedMedia[] = [];
  /** Uploads refused (wrong token, wrong hash), for assertions. */
  readonly refused: { path: string; reason: string }[] = [];
  private readonly auth = randomBytes(24).toString('base64');
  private readonly byPath = new Map<string, UploadedMedia>();
  /** Paths the CDN no longer serves, with the status it answers (see expire). */
  private readonly expired = new Map<string, 404 | 410>();
  private server: Server | null = null;
  private starting: Promise<string> | null = null;

  /** Starts listening on first use; resolves with `127.0.0.1:<port>`, the host `media_conn` names. */
  start(): Promise<string> {
    this.starting ??= new Promise<string>((resolve) => {
      const server = createServer({ key: MEDIA_HOST_KEY, cert: MEDIA_HOST_CERT }, (request, response) =>
        this.handle(request, response),
      );
      this.server = server;
      server.listen(0, '127.0.0.1', () => resolve(this.hostname));
    });
    return this.starting;
  }

  private get hostname(): string {
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error('media host not started');
    return `127.0.0.1:${address.port}`;
  }

  /** The answer to `<iq xmlns="w:m" type="set"><media_conn/></iq>` (starts the host if need be). */
  async mediaConnNode(): Promise<BinaryNode> {
    const hostname = await this.start();
    return {
      tag: 'media_conn',
      attrs: { auth: this.auth, ttl: '3600', auth_ttl: '21600', max_buckets: '12' },
      content: [{ tag: 'host', attrs: { hostname, maxContentLengthBytes: String(MAX_UPLOAD_BYTES) } }],
    };
  }

  /** The encrypted file at a direct path (or a full URL on this host), as a phone downloads it. */
  fetch(directPathOrUrl: string): Buffer | undefined {
    const path = pathOf(directPathOrUrl);
    return this.expired.has(path) ? undefined : this.byPath.get(path)?.body;
  }

  /**
   * Keeps an encrypted file a phone uploaded (a contact's media message) under a new direct path,
   * as an upload does; also how a phone's re-upload puts an expired file back.
   */
  keep(body: Buffer, uploadPath: string): UploadedMedia {
    const path = `/v/t62.7118-24/${randomBytes(16).toString('hex')}.enc`;
    const directPath = `${path}?ccb=11-4&oh=${randomBytes(8).toString('hex')}&oe=${Date.now().toString(16)}`;
    const uploaded: UploadedMedia = { uploadPath, directPath, body };
    this.uploads.push(uploaded);
    this.byPath.set(path, uploaded);
    return uploaded;
  }

  /** The file at a direct path (expired or not), as the phone that uploaded it still has it. */
  original(directPathOrUrl: string): UploadedMedia | undefined {
    return this.byPath.get(pathOf(directPathOrUrl));
  }

  /** The CDN no longer serves the file at this direct path: a download gets `status` (404 or 410). */
  expire(directPathOrUrl: string, status: 404 | 410 = 410): void {
    this.expired.set(pathOf(directPathOrUrl), status);
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.starting = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'https://media.emulator.test');
    if (request.method === 'GET') {
      const body = this.fetch(url.pathname);
      const status = body ? 200 : (this.expired.get(url.pathname) ?? 404);
      response.writeHead(status, { 'content-type': 'application/octet-stream' }).end(body);
      return;
    }
    if (request.method !== 'POST' || !url.pathname.startsWith('/mms/')) {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_UPLOAD_BYTES) chunks.push(chunk);
    });
    request.on('end', () => this.upload(url, Buffer.concat(chunks), size, response));
  }

  private upload(url: URL, body: Buffer, size: number, response: ServerResponse): void {
    const refuse = (status: number, reason: string) => {
      this.refused.push({ path: url.pathname, reason });
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ reason }));
    };
    if (url.searchParams.get('auth') !== this.auth) return refuse(401, 'auth');
    if (size > MAX_UPLOAD_BYTES) return refuse(413, 'too large');
    // The path and the token both name the file by the SHA-256 of its encrypted bytes (base64url).
    const digest = createHash('sha256').update(body).digest('base64url');
    const named = url.pathname.split('/').pop();
    if (named !== digest || url.searchParams.get('token') !== digest) return refuse(400, 'hash mismatch');
    const { directPath } = this.keep(body, url.pathname.slice(0, url.pathname.lastIndexOf('/')));
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ url: `https://${this.hostname}${directPath}`, direct_path: directPath }));
  }
}

function pathOf(directPathOrUrl: string): string {
  return new URL(directPathOrUrl, 'https://media.emulator.test').pathname;
}
