import { ApiError, mediaObjectName } from '@jumbe/contracts';
import { DataDirMediaStore } from '@jumbe/messaging';
import { type InboundMediaFile, MediaDownloadError, type SessionRef } from '@jumbe/network';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import pino from 'pino';
import { MediaFetcher } from './media-fetcher';

const REF: SessionRef = { accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId: 'sales' };
const OPTIONS = { maxBytes: 1_000, concurrency: 2, timeoutMs: 2_000 };

/** The network's side: what each message id downloads to (the edge this test plays). */
class ScriptedNetwork {
  readonly downloads: string[] = [];
  readonly files = new Map<string, () => InboundMediaFile>();

  downloadMedia = async (_ref: SessionRef, messageId: string): Promise<InboundMediaFile> => {
    this.downloads.push(messageId);
    const file = this.files.get(messageId);
    if (!file) throw new MediaDownloadError('media_not_found', 'no such media message');
    return file();
  };
}

const fileOf = (data: Readable, size: number | null = null): InboundMediaFile => ({
  mimetype: 'image/jpeg',
  fileName: null,
  size,
  data,
});

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
  );

describe('MediaFetcher', () => {
  let dir: string;
  let store: DataDirMediaStore;
  let network: ScriptedNetwork;
  let fetcher: MediaFetcher;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jumbe-media-'));
    store = new DataDirMediaStore(dir, 60_000);
    network = new ScriptedNetwork();
    fetcher = new MediaFetcher(network, store, OPTIONS, pino({ level: 'silent' }));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('puts the file into the store under its opaque name, and serves it from there the next time', async () => {
    network.files.set('M1', () => fileOf(Readable.from([Buffer.from('jpeg bytes')])));
    const first = await fetcher.fetch(REF, 'M1');
    expect(first).toEqual({
      object: mediaObjectName(REF, 'M1'),
      mimetype: 'image/jpeg',
      fileName: null,
      size: 10,
    });
    const opened = await store.open(first.object);
    expect(opened?.info.size).toBe(10);
    expect(await fetcher.fetch(REF, 'M1')).toEqual(first);
    expect(network.downloads).toEqual(['M1']);
  });

  it("stores a sender's file name with a lone surrogate well-formed (U+FFFD), so it can be served", async () => {
    network.files.set('M1', () => ({
      ...fileOf(Readable.from([Buffer.from('%PDF')])),
      mimetype: 'application/pdf',
      fileName: 'invoice\ud800.pdf',
    }));
    const fetched = await fetcher.fetch(REF, 'M1');
    expect(fetched.fileName).toBe('invoice\ufffd.pdf');
    expect((await store.open(fetched.object))?.info.fileName).toBe('invoice\ufffd.pdf');
  });

  it('answers a failing store 503 without its cause: no server path reaches a client', async () => {
    const failing = {
      info: async () => null,
      put: async () => {
        throw Object.assign(new Error(`EMFILE: too many open files, scandir '${dir}/media'`), {
          code: 'EMFILE',
        });
      },
      open: async () => null,
    };
    const warnings: unknown[] = [];
    const logger = { warn: (object: unknown) => warnings.push(object) };
    network.files.set('M1', () => fileOf(Readable.from([Buffer.from('x')])));
    const error = await new MediaFetcher(network, failing, OPTIONS, logger).fetch(REF, 'M1').catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('unavailable');
    expect(error.message).not.toContain(dir);
    expect(error.message).not.toContain('EMFILE');
    // The operator still learns why.
    expect(JSON.stringify(warnings.map((w) => String((w as { err: Error }).err)))).toContain('EMFILE');
  });

  it('downloads a file once for requests that arrive together', async () => {
    const gate = new PassThrough();
    network.files.set('M1', () => fileOf(gate));
    const both = Promise.all([fetcher.fetch(REF, 'M1'), fetcher.fetch(REF, 'M1')]);
    setTimeout(() => gate.end(Buffer.from('x')), 20);
    const [a, b] = await both;
    expect(a).toEqual(b);
    expect(network.downloads).toEqual(['M1']);
  });

  it('answers 503 media_busy while as many downloads as allowed are running, with Retry-After', async () => {
    const gates = [new PassThrough(), new PassThrough()];
    network.files.set('M1', () => fileOf(gates[0]!));
    network.files.set('M2', () => fileOf(gates[1]!));
    network.files.set('M3', () => fileOf(Readable.from([Buffer.from('z')])));
    const running = [fetcher.fetch(REF, 'M1'), fetcher.fetch(REF, 'M2')];
    await new Promise((resolve) => setTimeout(resolve, 20));
    const busy = await fetcher.fetch(REF, 'M3').catch((error: ApiError) => error);
    expect(busy).toBeInstanceOf(ApiError);
    expect((busy as ApiError).code).toBe('media_busy');
    expect((busy as ApiError).headers).toEqual({ 'Retry-After': '1' });
    for (const gate of gates) gate.end(Buffer.from('y'));
    await Promise.all(running);
    expect((await fetcher.fetch(REF, 'M3')).size).toBe(1);
  });

  it('refuses a file that grows past the size cap while it streams, storing nothing', async () => {
    network.files.set('BIG', () => fileOf(Readable.from([Buffer.alloc(600), Buffer.alloc(600)])));
    expect(await codeOf(fetcher.fetch(REF, 'BIG'))).toBe('media_too_large');
    expect(await store.info(mediaObjectName(REF, 'BIG'))).toBeNull();
  });

  it("passes the network's answers on: not found, expired; a failed stream is 502", async () => {
    network.files.set('GONE', () => {
      throw new MediaDownloadError('media_expired', 'gone');
    });
    network.files.set('CUT', () => {
      const data = new PassThrough();
      setTimeout(() => data.destroy(new Error('connection reset')), 10);
      return fileOf(data);
    });
    expect(await codeOf(fetcher.fetch(REF, 'NONE'))).toBe('media_not_found');
    expect(await codeOf(fetcher.fetch(REF, 'GONE'))).toBe('media_expired');
    expect(await codeOf(fetcher.fetch(REF, 'CUT'))).toBe('media_download_failed');
    expect(await store.info(mediaObjectName(REF, 'CUT'))).toBeNull();
  });

  it('gives up on a download that outlasts its deadline (502), freeing its place', async () => {
    const slow = new MediaFetcher(
      network,
      store,
      { ...OPTIONS, concurrency: 1, timeoutMs: 50 },
      pino({ level: 'silent' }),
    );
    network.files.set('SLOW', () => fileOf(new PassThrough()));
    network.files.set('NEXT', () => fileOf(Readable.from([Buffer.from('n')])));
    expect(await codeOf(slow.fetch(REF, 'SLOW'))).toBe('media_download_failed');
    expect((await slow.fetch(REF, 'NEXT')).size).toBe(1);
  });
});
