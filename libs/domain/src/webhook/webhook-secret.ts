import { randomBytes } from 'node:crypto';

/** Every webhook signing secret starts with this (spec, Authentication item 7). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Random bytes behind a secret (CONTRACT §6: `whsec_` + base64 of 32 random bytes). */
export const WEBHOOK_SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + standard base64 (with padding) of 32 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(WEBHOOK_SECRET_BYTES).toString('base64');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The key the Standard Webhooks signature is made with: the base64-decoded part after `whsec_`.
 * Throws on anything that is not `whsec_` + non-empty standard base64, because a secret that
 * cannot be decoded would silently sign with the wrong key.
 */
export function decodeWebhookSecret(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new Error(`A webhook secret starts with "${WEBHOOK_SECRET_PREFIX}"`);
  }
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (encoded.length === 0 || !BASE64.test(encoded)) {
    throw new Error(`A webhook secret is "${WEBHOOK_SECRET_PREFIX}" followed by standard base64`);
  }
  return Buffer.from(encoded, 'base64');
}

/** Whether `value` has the form of a signing secret this service issues. */
export function isWebhookSecret(value: string): boolean {
  try {
    return decodeWebhookSecret(value).length > 0;
  } catch {
    return false;
  }
}
