import { SecretBox } from '../crypto/secret-box';
import { maskProxyUrl } from './masked-proxy-url';
import { parseSessionProxyUrl } from './session-proxy-url';
import { SessionProxyVault } from './session-proxy-vault';

const SECRET = 'a-secret-key-of-enough-length-0123456789';
const SHOP = { accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId: 'shop' };

describe('a session proxy URL', () => {
  it.each([
    ['socks5://user:pa%40ss@Proxy.Example.com:1080', 'socks5', 'proxy.example.com', 1080, 'user', 'pa@ss'],
    ['socks5h://proxy.example.com', 'socks5h', 'proxy.example.com', 1080, '', ''],
    ['http://10.1.2.3:3128/', 'http', '10.1.2.3', 3128, '', ''],
    ['https://u@proxy.example.com', 'https', 'proxy.example.com', 443, 'u', ''],
    ['http://[2001:db8::1]:8080', 'http', '2001:db8::1', 8080, '', ''],
    ['socks5://0x7f.1:1080', 'socks5', '127.0.0.1', 1080, '', ''],
  ])('accepts %s', (raw, protocol, host, port, username, password) => {
    const verdict = parseSessionProxyUrl(raw);
    expect(verdict).toEqual({
      ok: true,
      proxy: expect.objectContaining({ protocol, host, port, username, password }),
    });
  });

  it('keeps a canonical form with the default port written out', () => {
    const verdict = parseSessionProxyUrl('SOCKS5://user:secret@Proxy.Example.com');
    expect(verdict.ok && verdict.proxy.href).toBe('socks5://user:secret@proxy.example.com:1080');
  });

  it.each([
    ['proxy.example.com:1080', /absolute proxy URL/],
    ['ftp://proxy.example.com', /must use http, https, socks5, socks5h, not ftp/],
    ['socks4://proxy.example.com', /not socks4/],
    ['http://proxy.example.com/path', /no path, query or fragment/],
    ['http://proxy.example.com?x=1', /no path, query or fragment/],
    ['http://proxy.example.com#x', /no path, query or fragment/],
    ['socks5://proxy.example.com:0', /port from 1 to 65535/],
    ['socks5://:1080', /absolute proxy URL/],
    [`http://${'a'.repeat(2050)}.com`, /at most 2048/],
  ])('refuses %s with a reason', (raw, reason) => {
    const verdict = parseSessionProxyUrl(raw);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toMatch(reason);
  });
});

describe('a session proxy URL as shown', () => {
  it.each([
    ['socks5://user:s3cr3t@proxy.example.com:1080', 'socks5://user:****@proxy.example.com:1080'],
    ['http://u%20x:p%3Aw@10.0.0.1:3128', 'http://u%20x:****@10.0.0.1:3128'],
    ['https://only-user@proxy.example.com', 'https://only-user@proxy.example.com:443'],
    ['socks5h://proxy.example.com', 'socks5h://proxy.example.com:1080'],
    ['http://:pw@[::1]:8080', 'http://:****@[::1]:8080'],
    ['not a url s3cr3t', '****'],
  ])('masks %s as %s', (raw, masked) => {
    expect(maskProxyUrl(raw)).toBe(masked);
    expect(maskProxyUrl(raw)).not.toMatch(/s3cr3t|p%3Aw|pw@/);
  });

  it('changes nothing when masking a masked URL', () => {
    const masked = maskProxyUrl('socks5://user:s3cr3t@proxy.example.com:1080');
    expect(maskProxyUrl(masked)).toBe(masked);
  });
});

describe('a session proxy sealed at rest', () => {
  const vault = new SessionProxyVault(SECRET);
  const url = 'socks5://user:s3cr3t@proxy.example.com:1080';

  it('opens what it sealed for the same session, and never shows the password sealed', () => {
    const sealed = vault.seal(SHOP, url);
    expect(sealed).not.toContain('s3cr3t');
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain('s3cr3t');
    expect(vault.open(SHOP, sealed)).toBe(url);
  });

  it("refuses a value copied to another session's row, or sealed under another key or purpose", () => {
    const sealed = vault.seal(SHOP, url);
    expect(() => vault.open({ ...SHOP, sessionId: 'other' }, sealed)).toThrow();
    expect(() =>
      new SessionProxyVault('another-secret-key-of-enough-length-01').open(SHOP, sealed),
    ).toThrow();
    const webhookSealed = new SecretBox(SECRET, 'webhook-url').sealBytes(url).toString('base64url');
    expect(() => vault.open(SHOP, webhookSealed)).toThrow();
  });
});
