import { SecretBox } from './secret-box';

describe('SecretBox (AES-256-GCM, key from JUMBE_SECRET_KEY by HKDF)', () => {
  const box = new SecretBox('a-secret-key-of-enough-length-0123456789', 'webhook-secret');

  it('opens what it sealed, and seals the same text differently each time', () => {
    const sealed = box.seal('whsec_abc');
    expect(box.openText(sealed)).toBe('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed);
    expect(sealed).not.toContain('whsec');
  });

  it('binds bytes to their associated data (where they are stored)', () => {
    const plain = Buffer.from('{"noiseKey":1}');
    const sealed = box.sealBytes(plain, 'row-1');
    expect(box.openBytes(sealed, 'row-1')).toEqual(plain);
    expect(() => box.openBytes(sealed, 'row-2')).toThrow();
  });

  it('refuses a tampered box, another key, another purpose, or an unknown format', () => {
    const sealed = box.sealBytes('whsec_abc');
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] = tampered[tampered.length - 1]! ^ 1;
    expect(() => box.openBytes(tampered)).toThrow();
    expect(() =>
      new SecretBox('another-secret-key-of-enough-length-01', 'webhook-secret').openBytes(sealed),
    ).toThrow();
    expect(() =>
      new SecretBox('a-secret-key-of-enough-length-0123456789', 'credentials').openBytes(sealed),
    ).toThrow();
    expect(() => box.openBytes(Buffer.from([9, 9]))).toThrow(/known version/);
    expect(() => new SecretBox('short', 'x')).toThrow(RangeError);
  });
});
