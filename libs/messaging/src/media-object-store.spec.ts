import { mediaObjectName } from '@jumbe/contracts';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { connect, type NatsConnection } from 'nats';
import { DataDirMediaStore } from './data-dir-media-store';
import { JetStreamMediaStore } from './jetstream-media-store';
import type { MediaObjectStore } from './media-object-store';

const NATS_URL = process.env['JUMBE_TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222';
const TTL_MS = 60 * 60 * 1000 * 4;

interface StoreKind {
  name: string;
  open(): Promise<MediaObjectStore>;
  cleanUp(): Promise<void>;
}

function dataDir(): StoreKind {
  let dir = '';
  return {
    name: 'DataDirMediaStore (all-in-one)',
    open: async () => {
      dir = await mkdtemp(join(tmpdir(), 'jumbe-media-store-'));
      return new DataDirMediaStore(dir, TTL_MS);
    },
    cleanUp: () => rm(dir, { recursive: true, force: true }),
  };
}

function jetStream(): StoreKind {
  const bucket = `jumbe-media-test-${randomBytes(4).toString('hex')}`;
  let connection: NatsConnection | null = null;
  return {
    name: 'JetStreamMediaStore (real NATS Object Store)',
    open: async () => {
      connection = await connect({ servers: NATS_URL, name: 'jumbe-test-media' });
      return new JetStreamMediaStore(connection, bucket, TTL_MS);
    },
    cleanUp: async () => {
      if (!connection) return;
      const manager = await connection.jetstreamManager();
      await manager.streams.delete(`OBJ_${bucket}`).catch(() => undefined);
      await connection.close();
    },
  };
}

const read = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

// The two stores must be interchangeable: one contract, run against both.
describe.each([dataDir(), jetStream()])('$name', (kind) => {
  let store: MediaObjectStore;
  beforeAll(async () => {
    store = await kind.open();
  });
  afterAll(() => kind.cleanUp());

  const name = (id: string) => mediaObjectName({ accountId: 'acct', sessionId: 'main' }, id);

  it('stores a file larger than a bus message, and streams it back byte for byte with its headers', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const meta = { mimetype: 'video/mp4', fileName: 'clip.mp4' };
    const info = await store.put(
      name('big'),
      meta,
      Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]),
    );
    expect(info).toMatchObject({ ...meta, size: bytes.length });
    expect(await store.info(name('big'))).toMatchObject({ ...meta, size: bytes.length });
    const opened = await store.open(name('big'));
    expect(opened?.info).toMatchObject({ ...meta, size: bytes.length });
    expect((await read(opened!.data)).equals(bytes)).toBe(true);
  });

  it('answers null for a file it does not have', async () => {
    expect(await store.info(name('missing'))).toBeNull();
    expect(await store.open(name('missing'))).toBeNull();
  });

  it('stores nothing when the incoming stream fails', async () => {
    const failing = new PassThrough();
    setTimeout(() => failing.destroy(new Error('download cut')), 20);
    failing.write(Buffer.alloc(1000));
    await expect(
      store.put(name('cut'), { mimetype: 'image/png', fileName: null }, failing),
    ).rejects.toThrow();
    expect(await store.info(name('cut'))).toBeNull();
  });

  it('removes a file (an upload once its send is answered), and removing an absent one is no error', async () => {
    const bytes = randomBytes(2 * 1024 * 1024 + 5);
    await store.put(name('sent'), { mimetype: 'image/jpeg', fileName: 'photo.jpg' }, Readable.from([bytes]));
    const opened = await store.open(name('sent'));
    if (!opened) throw new Error('the file was not stored');
    expect((await read(opened.data)).equals(bytes)).toBe(true);
    await store.remove(name('sent'));
    expect(await store.info(name('sent'))).toBeNull();
    expect(await store.open(name('sent'))).toBeNull();
    await expect(store.remove(name('sent'))).resolves.toBeUndefined();
  });
});

describe('DataDirMediaStore expiry', () => {
  it('forgets files past the time to live, and deletes them at the next put', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jumbe-media-ttl-'));
    try {
      const store = new DataDirMediaStore(dir, 100);
      const old = mediaObjectName({ accountId: 'a', sessionId: 's' }, 'old');
      await store.put(old, { mimetype: 'image/png', fileName: null }, Readable.from([Buffer.from('x')]));
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await store.info(old)).toBeNull();
      expect(await store.open(old)).toBeNull();
      const fresh = mediaObjectName({ accountId: 'a', sessionId: 's' }, 'new');
      await store.put(fresh, { mimetype: 'image/png', fileName: null }, Readable.from([Buffer.from('y')]));
      expect((await readdir(dir)).sort()).toEqual([fresh, `${fresh}.json`].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('JetStreamMediaStore reads', () => {
  const bucket = `jumbe-media-read-${randomBytes(4).toString('hex')}`;
  let connection: NatsConnection;
  let store: JetStreamMediaStore;
  const consumers = async () =>
    (await (await connection.jetstreamManager()).streams.info(`OBJ_${bucket}`)).state.consumer_count;
  const object = mediaObjectName({ accountId: 'a', sessionId: 's' }, 'read');

  beforeAll(async () => {
    connection = await connect({ servers: NATS_URL, name: 'jumbe-test-media-read' });
    store = new JetStreamMediaStore(connection, bucket, TTL_MS);
    await store.put(
      object,
      { mimetype: 'video/mp4', fileName: null },
      Readable.from([randomBytes(1024 * 1024)]),
    );
  });
  afterAll(async () => {
    await (await connection.jetstreamManager()).streams.delete(`OBJ_${bucket}`).catch(() => undefined);
    await connection.close();
  });

  it('opens a file without creating a consumer, so a read never started or abandoned leaves none (issue 29)', async () => {
    const neverRead = await store.open(object);
    const abandoned = await store.open(object);
    await new Promise((resolve) => abandoned!.data.once('readable', resolve));
    expect(await consumers()).toBe(0);
    neverRead!.data.destroy();
    abandoned!.data.destroy();
    expect(await consumers()).toBe(0);
  });
});
