import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox('a-secret-key-of-enough-length-0123456789', 'webhook-secret');

  it('opens what it sealed, and seals the same text differently each time', () => {
    const sealed = box.seal('whsec_abc');
    expect(box.openText(sealed)).toBe('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed);
    expect(sealed).not.toContain('whsec');
  });

  it('refuses a tampered box, another key, or another purpose', () => {
    const sealed = box.seal('whsec_abc');
    const [v, iv, tag, data] = sealed.split('.');
    const flipped = Buffer.from(data!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open([v, iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
    expect(() =>
      new SecretBox('another-secret-key-of-enough-length-01', 'webhook-secret').open(sealed),
    ).toThrow();
    expect(() =>
      new SecretBox('a-secret-key-of-enough-length-0123456789', 'credentials').open(sealed),
    ).toThrow();
    expect(() => box.open('garbage')).toThrow(/known version/);
  });
});
