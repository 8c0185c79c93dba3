import { randomBytes } from 'node:crypto';
import { decodeWebhookSecret, isWebhookSecret, WEBHOOK_SECRET_PREFIX } from './webhook-secret';

/**
 * A signing secret is `whsec_` + standard base64 (CONTRACT §6). One that is not must be refused,
 * never decoded into some other key: the receiver would then reject every signature we send.
 */
describe('webhook signing secrets', () => {
  const secretOf = (bytes: number) => WEBHOOK_SECRET_PREFIX + randomBytes(bytes).toString('base64');

  it.each([
    ['no padding (30 bytes)', 30],
    ['one padding character (32 bytes)', 32],
    ['two padding characters (31 bytes)', 31],
    ['a single byte', 1],
  ])('accepts and decodes a secret with %s', (_form, bytes) => {
    const secret = secretOf(bytes);
    expect(isWebhookSecret(secret)).toBe(true);
    expect(decodeWebhookSecret(secret)).toEqual(
      Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64'),
    );
    expect(decodeWebhookSecret(secret)).toHaveLength(bytes);
  });

  it('refuses a secret without the whsec_ prefix, even when the rest is base64', () => {
    const secret = secretOf(32);
    for (const wrong of [
      secret.slice(WEBHOOK_SECRET_PREFIX.length),
      `whsex_${secret.slice(6)}`,
      `xx${secret}`,
    ]) {
      expect(isWebhookSecret(wrong)).toBe(false);
      expect(() => decodeWebhookSecret(wrong)).toThrow('A webhook secret starts with "whsec_"');
    }
  });

  it.each([
    ['nothing after the prefix', ''],
    ['unpadded leftovers', 'abc'],
    ['a lone character before ==', 'AAAAA=='],
    ['too much padding', 'AA==='],
    ['base64url characters', 'ab-_'],
    ['whitespace', 'AAAA AAAA'],
  ])('refuses %s', (_form, encoded) => {
    expect(isWebhookSecret(WEBHOOK_SECRET_PREFIX + encoded)).toBe(false);
    expect(() => decodeWebhookSecret(WEBHOOK_SECRET_PREFIX + encoded)).toThrow('followed by standard base64');
  });
});
