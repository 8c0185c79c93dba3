import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

/**
 * Encrypts secrets at rest (webhook signing secrets, network credentials) with AES-256-GCM under
 * a key derived from JUMBE_SECRET_KEY (HKDF-SHA256) for one purpose, so a key used for one kind
 * of secret can never open another. Optional associated data binds a value to where it is stored
 * (a value copied into another row fails to open instead of being silently accepted).
 *
 * Layout: version (1 byte) ‖ IV (12) ‖ tag (16) ‖ ciphertext; as text, base64url of that.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secretKey: string, purpose: string) {
    if (secretKey.length < 16) throw new RangeError('the secret key must be at least 16 characters');
    this.key = Buffer.from(
      hkdfSync('sha256', Buffer.from(secretKey, 'utf8'), Buffer.alloc(0), `jumbe/${purpose}/v1`, 32),
    );
  }

  sealBytes(plaintext: Buffer | string, associatedData = ''): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** Throws when the value was not sealed by this key, for this purpose and associated data. */
  openBytes(sealed: Buffer, associatedData = ''): Buffer {
    if (sealed.length < HEADER_BYTES || sealed[0] !== VERSION)
      throw new Error('not a sealed secret of a known version');
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(1, 1 + IV_BYTES));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.subarray(1 + IV_BYTES, HEADER_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]);
  }

  seal(plaintext: string): string {
    return this.sealBytes(plaintext).toString('base64url');
  }

  openText(sealed: string): string {
    return this.openBytes(Buffer.from(sealed, 'base64url')).toString('utf8');
  }
}
