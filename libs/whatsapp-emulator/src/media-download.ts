import { getMediaKeys, type MediaType, proto } from '@whiskeysockets/baileys';
import { createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The media part of a message and the HKDF kind its keys are derived with. */
const MEDIA_FIELDS: [keyof proto.IMessage, MediaType][] = [
  ['imageMessage', 'image'],
  ['videoMessage', 'video'],
  ['audioMessage', 'audio'],
  ['documentMessage', 'document'],
  ['stickerMessage', 'sticker'],
];

interface MediaFields {
  mediaKey?: Uint8Array | null;
  directPath?: string | null;
  url?: string | null;
  fileEncSha256?: Uint8Array | null;
  fileSha256?: Uint8Array | null;
  fileLength?: number | Long | null;
}
interface Long {
  toString(): string;
}

/**
 * What a phone does with a media message it received: downloads the encrypted file by its direct
 * path, checks it is the file the message names (`fileEncSha256`), checks the MAC, decrypts it
 * (AES-256-CBC, keys from `mediaKey` by HKDF) and checks the plaintext's `fileSha256` and length.
 * Throws when any check fails; returns the file's bytes.
 */
export async function downloadAndDecrypt(
  message: proto.IMessage,
  download: (directPathOrUrl: string) => Buffer | undefined,
): Promise<Buffer> {
  const found = MEDIA_FIELDS.find(([field]) => message[field]);
  if (!found) throw new Error('the message carries no media');
  const [field, kind] = found;
  const media = message[field] as MediaFields;
  if (!media.mediaKey) throw new Error('the media message has no media key');
  const where = media.directPath ?? media.url;
  const encrypted = where ? download(where) : undefined;
  if (!encrypted) throw new Error(`no uploaded file at ${where ?? '(no direct path)'}`);
  if (!sameBytes(createHash('sha256').update(encrypted).digest(), media.fileEncSha256)) {
    throw new Error('the uploaded file is not the one the message names (fileEncSha256)');
  }
  const { iv, cipherKey, macKey } = await getMediaKeys(media.mediaKey, kind);
  if (!macKey) throw new Error('no MAC key derived');
  const ciphertext = encrypted.subarray(0, -10);
  const mac = createHmac('sha256', macKey).update(iv).update(ciphertext).digest().subarray(0, 10);
  if (!sameBytes(mac, encrypted.subarray(-10))) throw new Error('media MAC mismatch');
  const decipher = createDecipheriv('aes-256-cbc', cipherKey, iv);
  const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  if (!sameBytes(createHash('sha256').update(plaintext).digest(), media.fileSha256)) {
    throw new Error('the decrypted file does not match fileSha256');
  }
  if (media.fileLength !== undefined && media.fileLength !== null) {
    if (Number(media.fileLength.toString()) !== plaintext.length) throw new Error('fileLength mismatch');
  }
  return plaintext;
}

function sameBytes(a: Uint8Array, b: Uint8Array | null | undefined): boolean {
  return !!b && a.length === b.length && timingSafeEqual(a, b);
}
