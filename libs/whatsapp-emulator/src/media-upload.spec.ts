import './trust-preload';
import { DataDirMediaStore } from '@jumbe/messaging';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DriverHarness, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { EmulatedNetwork } from './network';

/**
 * A file a customer uploaded (multipart `POST /messages/media`), as the worker sends it: the
 * product's WhatsApp driver reads it from the uploads store by the name the message carries (the
 * all-in-one's folder store here; the Object Store has the same interface), and the real Baileys
 * encrypts and uploads it to the emulator's media host. The contact's phone downloads and decrypts
 * it: the same bytes, no URL fetched anywhere.
 */
describe('an uploaded file sent through real Baileys (emulator)', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const dir = mkdtempSync(join(tmpdir(), 'jumbe-upload-spec-'));
  const uploads = new DataDirMediaStore(dir, 60 * 60 * 1000);
  let harness: DriverHarness;

  beforeAll(async () => {
    const url = await emulator.start();
    harness = new DriverHarness(url, undefined, { mediaHost: await network.media.start(), uploads });
  });
  afterEach(() => harness.closeAll());
  afterAll(async () => {
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers an uploaded image that the contact decrypts byte for byte', async () => {
    const phone = network.user('254700000031');
    const contact = network.user('254711000031');
    const linked = await harness.link(network, phone, 'uploads');
    const photo = randomBytes(200_000);
    const name = randomBytes(32).toString('hex');
    await uploads.put(name, { mimetype: 'image/jpeg', fileName: 'photo.jpg' }, Readable.from([photo]));

    const sent = await linked.session.send({
      kind: 'media',
      to: '254711000031@s.whatsapp.net',
      type: 'image',
      caption: 'Receipt',
      mimetype: 'image/jpeg',
      upload: { name, size: photo.length, fileName: 'photo.jpg' },
    });
    const received = await until(
      () => network.receivedBy(contact).find((message) => message.id === sent.id),
      20_000,
    );
    expect(received.message.imageMessage?.caption).toBe('Receipt');
    expect(received.message.imageMessage?.mimetype).toBe('image/jpeg');
    expect((await network.downloadMedia(received)).equals(photo)).toBe(true);
  }, 40_000);

  it('fails media_fetch_failed, sending nothing, when the upload is no longer stored', async () => {
    const phone = network.user('254700000032');
    const contact = network.user('254711000032');
    const linked = await harness.link(network, phone, 'uploads-gone');
    const send = linked.session.send({
      kind: 'media',
      to: '254711000032@s.whatsapp.net',
      type: 'document',
      upload: { name: 'f'.repeat(64), size: 10, fileName: 'gone.pdf' },
    });
    await expect(send).rejects.toMatchObject({ code: 'media_fetch_failed' });
    expect(network.receivedBy(contact)).toEqual([]);
  }, 40_000);
});
