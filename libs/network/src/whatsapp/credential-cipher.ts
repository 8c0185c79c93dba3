import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;
/** Names what the derived key is for, so the same secret never yields this key for anything else. */
const KEY_INFO = 'jumbe/network-credentials/v1';

/**
 * Encrypts stored network credentials at rest: AES-256-GCM under a key derived from
 * JUMBE_SECRET_KEY with HKDF-SHA256. Each value gets a fresh random IV; the row's address
 * (session, kind, key id) is bound in as associated data, so a value copied into another row or
 * another session fails to decrypt instead of being silently accepted.
 *
 * Layout: version (1 byte) ‖ IV (12) ‖ tag (16) ‖ ciphertext.
 */
export class CredentialCipher {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (secret.length < 16) throw new RangeError('the secret key must be at least 16 characters');
    this.key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), KEY_INFO, 32));
  }

  encrypt(plaintext: Buffer, address: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(address, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** Throws when the value was not made by this key for this address (or was tampered with). */
  decrypt(sealed: Buffer, address: string): Buffer {
    if (sealed.length < HEADER_BYTES || sealed[0] !== VERSION) {
      throw new Error('stored credential is not in a known format');
    }
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, HEADER_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAAD(Buffer.from(address, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]);
  }
}
