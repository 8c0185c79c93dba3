import { createHmac } from 'node:crypto';

/**
 * A short value that tells two secret keys apart without revealing either: an HMAC of a fixed
 * label under the key. Stored in backups so a restore can tell whether the key at hand opens the
 * sealed values in it.
 */
export function secretKeyFingerprint(secretKey: string): string {
  return createHmac('sha256', secretKey)
    .update('jumbe/secret-key-fingerprint/v1')
    .digest('base64url')
    .slice(0, 22);
}
