import './trust-preload';
import { MediaDownloadError } from '@jumbe/network';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { contactMediaMessage } from './contact-media';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { EmulatedNetwork } from './network';

const LIMITS = { maxBytes: 1024 * 1024 };

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * Issue 28: WhatsApp's CDN copy of a received file expires (404/410) while the phone keeps the
 * file; the worker asks the phone to upload it again (Baileys' updateMediaMessage) and still
 * hands the customer the file.
 */
describe('a received media file whose CDN copy expired', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000072', 'Kibanda');
  const contact = network.user('254711000072', 'Akinyi');
  let harness: DriverHarness;
  let opened: OpenedSession;

  /** The contact sends a photo; resolves once the session received it, with its id and bytes. */
  async function receivedPhoto(): Promise<{ id: string; bytes: Buffer; directPath: string }> {
    const bytes = randomBytes(20_000);
    const message = await contactMediaMessage(network.media, {
      bytes,
      kind: 'image',
      mimetype: 'image/jpeg',
    });
    const id = await network.sendMessage(contact, phone, message);
    await until(() => opened.inbound.some((inbound) => inbound.id === id), 20_000);
    return { id, bytes, directPath: message.imageMessage?.directPath ?? '' };
  }

  beforeAll(async () => {
    const url = await emulator.start();
    harness = new DriverHarness(url, undefined, { mediaHost: await network.media.start() });
    opened = await harness.link(network, phone, 'media-reupload');
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it.each([410, 404] as const)(
    'is downloaded after the phone uploads it again (CDN answers %i)',
    async (status) => {
      const photo = await receivedPhoto();
      network.media.expire(photo.directPath, status);
      const file = await harness.driver.downloadMedia(opened.ref, photo.id, LIMITS);
      expect((await bytesOf(file.data)).equals(photo.bytes)).toBe(true);
      expect(network.mediaReupload.reuploaded).toContain(photo.id);
    },
    30_000,
  );

  it('stays media_expired when the phone no longer has the file', async () => {
    const photo = await receivedPhoto();
    network.media.expire(photo.directPath);
    network.mediaReupload.phoneKeepsMedia = false;
    const failure = await harness.driver.downloadMedia(opened.ref, photo.id, LIMITS).then(
      () => null,
      (error: unknown) => error,
    );
    network.mediaReupload.phoneKeepsMedia = true;
    expect(failure).toBeInstanceOf(MediaDownloadError);
    expect((failure as MediaDownloadError).code).toBe('media_expired');
  }, 30_000);
});
