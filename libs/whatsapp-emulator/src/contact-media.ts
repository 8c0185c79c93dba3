import { getMediaKeys, type MediaType, type proto } from '@whiskeysockets/baileys';
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { EmulatedMediaHost } from './media-host';

export interface ContactFile {
  readonly bytes: Buffer;
  readonly kind: Extract<MediaType, 'image' | 'video' | 'audio' | 'document' | 'sticker'>;
  readonly mimetype: string;
  readonly caption?: string;
  readonly fileName?: string;
}

/**
 * What a contact's phone does before it sends a media message: encrypts the file (AES-256-CBC and
 * a 10-byte HMAC, keys from a fresh `mediaKey` by HKDF, as Baileys' `encryptedStream`), puts it
 * on the CDN (`host`), and returns the message naming it (`directPath`, `url`, the hashes).
 * Send it with `EmulatedNetwork.sendMessage`.
 */
export async function contactMediaMessage(
  host: EmulatedMediaHost,
  file: ContactFile,
): Promise<proto.IMessage> {
  const mediaKey = randomBytes(32);
  const { iv, cipherKey, macKey } = await getMediaKeys(mediaKey, file.kind);
  if (!macKey) throw new Error('no MAC key derived');
  const cipher = createCipheriv('aes-256-cbc', cipherKey, iv);
  const ciphertext = Buffer.concat([cipher.update(file.bytes), cipher.final()]);
  const mac = createHmac('sha256', macKey).update(iv).update(ciphertext).digest().subarray(0, 10);
  const body = Buffer.concat([ciphertext, mac]);
  const hostname = await host.start();
  const { directPath } = host.keep(body, `/mms/${file.kind}`);
  const fields = {
    url: `https://${hostname}${directPath}`,
    directPath,
    mediaKey,
    mimetype: file.mimetype,
    fileEncSha256: createHash('sha256').update(body).digest(),
    fileSha256: createHash('sha256').update(file.bytes).digest(),
    fileLength: file.bytes.length,
    mediaKeyTimestamp: Math.floor(Date.now() / 1000),
    ...(file.caption ? { caption: file.caption } : {}),
    ...(file.fileName ? { fileName: file.fileName } : {}),
  };
  return { [`${file.kind}Message`]: fields };
}
