/** What a phone reads from the QR code a linking device shows (Baileys' buildPairingQRData). */
export interface LinkingQr {
  /** One of the refs the server gave the device in `pair-device`. */
  readonly ref: string;
  /** The device's noise static public key (it will log in with it). */
  readonly noiseKey: Buffer;
  /** The device's Signal identity public key. */
  readonly identityKey: Buffer;
  /** The secret the phone signs the device identity with (HMAC-SHA256 key). */
  readonly advSecret: Buffer;
  readonly platformId: string;
}

const QR_PREFIX = 'https://wa.me/settings/linked_devices#';

/** Reads a linking QR string; throws on anything a phone would refuse to scan. */
export function parseLinkingQr(qr: string): LinkingQr {
  if (!qr.startsWith(QR_PREFIX)) throw new Error('not a WhatsApp linking QR');
  const [ref, noiseKey, identityKey, advSecret, platformId = ''] = qr.slice(QR_PREFIX.length).split(',');
  const keys = [noiseKey, identityKey, advSecret].map((part) => Buffer.from(part ?? '', 'base64'));
  if (!ref || keys.some((key) => key.length !== 32)) throw new Error('malformed linking QR');
  return { ref, noiseKey: keys[0], identityKey: keys[1], advSecret: keys[2], platformId };
}
