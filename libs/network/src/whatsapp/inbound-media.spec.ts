import { encryptedStream, proto } from '@whiskeysockets/baileys';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { inboundMediaBinding, SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
import pino from 'pino';
import { MediaDownloadError } from '../inbound-media-file';
import type { SessionRef } from '../session-ref';
import { InboundMediaArchive } from './inbound-media-archive';
import { ProcessInboundMediaStore } from './inbound-media-store';
import { EventRecorder } from './test-support/event-recorder';
import { FakeWhatsApp } from './test-support/fake-baileys';
import { type LoopbackMediaServer, startLoopbackMediaServer } from './test-support/loopback-https';
import { MemoryCredentialStore } from './test-support/memory-credential-store';
import { WhatsAppNetworkDriver } from './whatsapp-network-driver';
import type { WhatsAppNetworkOptions } from './whatsapp-settings';

const REF: SessionRef = { accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId: 'sales' };
const SECRET = 'test-secret-key-with-enough-characters';
const LIMITS = { maxBytes: 1024 * 1024 };

/**
 * Received media through the real library: files encrypted by Baileys' own encryptedStream (as a
 * sender's phone does), messages built from Baileys' protos, downloaded and decrypted by Baileys'
 * downloadContentFromMessage from a loopback HTTPS server standing in for mmg.whatsapp.net.
 */
describe('WhatsAppNetworkDriver: received media files', () => {
  let server: LoopbackMediaServer;
  // The stand-in's certificate is self-signed, so this test process alone accepts any certificate
  // while it runs. Node's TLS reads the real process's environment, which Jest hides behind a
  // copy: reach it through a function of Node's own realm (Buffer's).
  const realEnv = (Buffer.constructor('return process')() as NodeJS.Process).env;
  const previousTlsSetting = realEnv['NODE_TLS_REJECT_UNAUTHORIZED'];

  beforeAll(async () => {
    server = await startLoopbackMediaServer();
    realEnv['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
  });
  afterAll(async () => {
    if (previousTlsSetting === undefined) delete realEnv['NODE_TLS_REJECT_UNAUTHORIZED'];
    else realEnv['NODE_TLS_REJECT_UNAUTHORIZED'] = previousTlsSetting;
    await server.close();
  });

  function driverWith(store: ProcessInboundMediaStore, overrides: Partial<WhatsAppNetworkOptions> = {}) {
    const network = new FakeWhatsApp();
    const driver = new WhatsAppNetworkDriver({
      credentials: new MemoryCredentialStore(),
      secretKey: SECRET,
      logger: pino({ level: 'silent' }),
      socketFactory: network.factory,
      fetchVersion: async () => null,
      connectSpacingMs: 0,
      redeliveryIntervalMs: 20,
      inboundMedia: store,
      mediaHost: server.host,
      ...overrides,
    });
    return { network, driver };
  }

  /** A connected session whose socket a test feeds received messages. */
  async function connected(store: ProcessInboundMediaStore) {
    const { network, driver } = driverWith(store);
    const events = new EventRecorder();
    await driver.open(REF, events, { linked: false, token: 1 });
    const first = await network.socket(1);
    first.showQr('2@qr');
    await first.linkPhone('254712345678');
    const socket = await network.socket(2);
    socket.open();
    await events.untilEvent('connected');
    return { driver, events, socket };
  }

  /** `bytes` encrypted as a phone uploads them, served at a fresh path; the media fields of the message. */
  async function uploaded(bytes: Buffer, type: 'image' | 'document' | 'audio') {
    const encrypted = await encryptedStream(bytes, type);
    const body = await readFile(encrypted.encFilePath);
    await rm(encrypted.encFilePath, { force: true });
    const directPath = `/v/t62.7118-24/${randomBytes(8).toString('hex')}.enc?ccb=11-4`;
    server.files.set(directPath, { status: 200, body });
    return {
      directPath,
      url: `https://mmg.whatsapp.net${directPath}`,
      mediaKey: encrypted.mediaKey,
      fileSha256: encrypted.fileSha256,
      fileEncSha256: encrypted.fileEncSha256,
      fileLength: encrypted.fileLength,
    };
  }

  const received = (id: string, message: proto.IMessage) => ({
    key: { remoteJid: '255700000009@s.whatsapp.net', fromMe: false, id },
    message,
    messageTimestamp: 1_767_225_600,
  });

  const bytesOf = async (stream: Readable): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => (error instanceof MediaDownloadError ? error.code : String(error)),
    );

  it('still downloads a descriptor kept in the earlier form (the media message alone, without its key)', async () => {
    const store = new ProcessInboundMediaStore();
    const { driver } = driverWith(store);
    const bytes = randomBytes(5_000);
    const media = await uploaded(bytes, 'document');
    const bare = proto.Message.encode({
      documentMessage: { ...media, mimetype: 'application/pdf' },
    }).finish();
    const cipher = new SecretBox(SECRET, SECRET_PURPOSES.networkCredentials);
    await store.save(REF, 'OLD1', cipher.sealBytes(Buffer.from(bare), inboundMediaBinding(REF, 'OLD1')));
    const file = await driver.downloadMedia(REF, 'OLD1', LIMITS);
    expect(file.mimetype).toBe('application/pdf');
    expect((await bytesOf(file.data)).equals(bytes)).toBe(true);
  });

  it('keeps the sealed descriptor of a received image, and any driver downloads and decrypts it byte for byte', async () => {
    const store = new ProcessInboundMediaStore();
    const { driver, events, socket } = await connected(store);
    const bytes = randomBytes(100_000);
    const media = await uploaded(bytes, 'image');
    socket.receive([
      received('IMG1', {
        imageMessage: {
          ...media,
          mimetype: 'image/png',
          caption: 'Receipt',
          jpegThumbnail: randomBytes(2_000),
        },
      }),
    ]);
    await events.until(() => events.inbound.length === 1, 'the message');
    expect(events.inbound[0]?.media).toMatchObject({
      type: 'image',
      mimetype: 'image/png',
      caption: 'Receipt',
    });

    // Sealed: neither the media key nor the caption is readable in the store; no thumbnail kept.
    const stored = await store.find(REF, 'IMG1');
    if (!stored || stored.expired) throw new Error('no descriptor kept');
    expect(stored.value.includes(Buffer.from(media.mediaKey))).toBe(false);
    expect(stored.value.includes(Buffer.from('Receipt'))).toBe(false);
    expect(stored.value.length).toBeLessThan(600);

    const file = await driver.downloadMedia(REF, 'IMG1', LIMITS);
    expect({ mimetype: file.mimetype, fileName: file.fileName, size: file.size }).toEqual({
      mimetype: 'image/png',
      fileName: null,
      size: bytes.length,
    });
    expect((await bytesOf(file.data)).equals(bytes)).toBe(true);

    // Another worker (a fresh driver, the same store and key) needs no connection to serve it.
    const { driver: nextOwner } = driverWith(store);
    expect((await bytesOf((await nextOwner.downloadMedia(REF, 'IMG1', LIMITS)).data)).equals(bytes)).toBe(
      true,
    );
  });

  it("keeps a document's file name through the document-with-caption wrapper", async () => {
    const store = new ProcessInboundMediaStore();
    const { driver, events, socket } = await connected(store);
    const bytes = Buffer.from('%PDF-1.4 habari');
    const media = await uploaded(bytes, 'document');
    socket.receive([
      received('DOC1', {
        documentWithCaptionMessage: {
          message: {
            documentMessage: {
              ...media,
              mimetype: 'application/pdf',
              fileName: 'ankara.pdf',
              caption: 'Invoice',
            },
          },
        },
      }),
    ]);
    await events.until(() => events.inbound.length === 1, 'the message');
    const file = await driver.downloadMedia(REF, 'DOC1', LIMITS);
    expect([file.mimetype, file.fileName]).toEqual(['application/pdf', 'ankara.pdf']);
    expect((await bytesOf(file.data)).equals(bytes)).toBe(true);
  });

  it('downloads only from the media host, whatever host the message names', async () => {
    const store = new ProcessInboundMediaStore();
    const { driver, events, socket } = await connected(store);
    const bytes = randomBytes(1_000);
    const media = await uploaded(bytes, 'audio');
    socket.receive([
      received('AUD1', {
        audioMessage: { ...media, url: `https://169.254.169.254${media.directPath}`, mimetype: 'audio/ogg' },
      }),
    ]);
    await events.until(() => events.inbound.length === 1, 'the message');
    const file = await driver.downloadMedia(REF, 'AUD1', LIMITS);
    expect((await bytesOf(file.data)).equals(bytes)).toBe(true);
    expect(server.requested.at(-1)).toBe(media.directPath);
  });

  it('answers media_not_found, media_expired, media_too_large and media_download_failed', async () => {
    const store = new ProcessInboundMediaStore();
    const { driver, events, socket } = await connected(store);
    const gone = await uploaded(randomBytes(500), 'image');
    const broken = await uploaded(randomBytes(500), 'image');
    const large = await uploaded(randomBytes(5_000), 'image');
    server.files.set(gone.directPath, { status: 410, body: Buffer.alloc(0) });
    server.files.set(broken.directPath, { status: 500, body: Buffer.alloc(0) });
    socket.receive([
      received('GONE', { imageMessage: { ...gone, mimetype: 'image/jpeg' } }),
      received('BROKEN', { imageMessage: { ...broken, mimetype: 'image/jpeg' } }),
      received('LARGE', { imageMessage: { ...large, mimetype: 'image/jpeg' } }),
      received('TEXT', { conversation: 'no file here' }),
    ]);
    await events.until(() => events.inbound.length === 4, 'the messages');
    expect(await failureOf(driver.downloadMedia(REF, 'GONE', LIMITS))).toBe('media_expired');
    expect(await failureOf(driver.downloadMedia(REF, 'BROKEN', LIMITS))).toBe('media_download_failed');
    expect(await failureOf(driver.downloadMedia(REF, 'LARGE', { maxBytes: 4_000 }))).toBe('media_too_large');
    expect(await failureOf(driver.downloadMedia(REF, 'TEXT', LIMITS))).toBe('media_not_found');
    expect(await failureOf(driver.downloadMedia(REF, 'UNKNOWN', LIMITS))).toBe('media_not_found');
    // The same message id under another session of the account is another message.
    expect(await failureOf(driver.downloadMedia({ ...REF, sessionId: 'support' }, 'LARGE', LIMITS))).toBe(
      'media_not_found',
    );
  });

  it('fails the stream when the decrypted file does not match its SHA-256', async () => {
    const store = new ProcessInboundMediaStore();
    const { driver, events, socket } = await connected(store);
    const media = await uploaded(randomBytes(2_000), 'image');
    socket.receive([
      received('ALTERED', {
        imageMessage: { ...media, fileSha256: randomBytes(32), mimetype: 'image/jpeg' },
      }),
    ]);
    await events.until(() => events.inbound.length === 1, 'the message');
    const file = await driver.downloadMedia(REF, 'ALTERED', LIMITS);
    await expect(bytesOf(file.data)).rejects.toThrow(/SHA-256/);
  });
});

describe('WhatsAppNetworkDriver: received media over TLS', () => {
  it('refuses a media server whose certificate it does not trust (no switch turns the check off)', async () => {
    const server = await startLoopbackMediaServer();
    try {
      const store = new ProcessInboundMediaStore();
      const network = new FakeWhatsApp();
      const driver = new WhatsAppNetworkDriver({
        credentials: new MemoryCredentialStore(),
        secretKey: SECRET,
        logger: pino({ level: 'silent' }),
        socketFactory: network.factory,
        fetchVersion: async () => null,
        connectSpacingMs: 0,
        inboundMedia: store,
        mediaHost: server.host,
      });
      const encrypted = await encryptedStream(randomBytes(100), 'image');
      server.files.set('/v/x.enc', { status: 200, body: await readFile(encrypted.encFilePath) });
      await rm(encrypted.encFilePath, { force: true });
      // What the driver keeps when the message arrives, through the archive the session uses.
      await new InboundMediaArchive(
        store,
        new SecretBox(SECRET, SECRET_PURPOSES.networkCredentials),
        pino({ level: 'silent' }),
      ).remember(
        REF,
        proto.WebMessageInfo.fromObject({
          key: { remoteJid: '255700000009@s.whatsapp.net', fromMe: false, id: 'TLS1' },
          message: {
            imageMessage: { directPath: '/v/x.enc', mediaKey: encrypted.mediaKey, mimetype: 'image/jpeg' },
          },
        }) as never,
      );
      const failure = await driver.downloadMedia(REF, 'TLS1', LIMITS).then(
        () => null,
        (error: unknown) => (error as MediaDownloadError).code,
      );
      expect(failure).toBe('media_download_failed');
      expect(server.requested).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
