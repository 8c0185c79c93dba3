import { checkHost, checkLiteralHost } from './host-policy';

const resolver = async (host: string) =>
  ({
    'proxy.example.com': ['203.0.113.9', '93.184.216.34'],
    'public.example.com': ['93.184.216.34'],
    'intranet.example.com': ['10.0.0.5'],
  })[host] ?? [];

describe("a bare host's check (a session's proxy)", () => {
  it('accepts a public literal or a name whose every address is public', async () => {
    expect(await checkHost('93.184.216.34', 'proxy', { allowPrivateNetworks: false, resolver })).toEqual({
      ok: true,
    });
    expect(await checkHost('public.example.com', 'proxy', { allowPrivateNetworks: false, resolver })).toEqual(
      { ok: true },
    );
  });

  it('refuses a private literal, a name resolving to any non-public address, or an unresolvable name', async () => {
    const strict = { allowPrivateNetworks: false, resolver };
    expect(await checkHost('127.0.0.1', 'proxy', strict)).toEqual({
      ok: false,
      reason: 'proxy points to 127.0.0.1, a loopback address; proxy must be on a public address',
    });
    expect(await checkHost('intranet.example.com', 'proxy', strict)).toEqual({
      ok: false,
      reason:
        'proxy host intranet.example.com resolves to 10.0.0.5, a private address; proxy must be on a public address',
    });
    expect(await checkHost('proxy.example.com', 'proxy', strict)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('203.0.113.9'),
    });
    expect(await checkHost('nowhere.example.com', 'proxy', strict)).toEqual({
      ok: false,
      reason: 'proxy host nowhere.example.com could not be resolved',
    });
  });

  it('allows private addresses when the operator allows private networks (names must still resolve)', async () => {
    const open = { allowPrivateNetworks: true, resolver };
    expect(await checkHost('10.1.2.3', 'proxy', open)).toEqual({ ok: true });
    expect(await checkHost('intranet.example.com', 'proxy', open)).toEqual({ ok: true });
    expect((await checkHost('nowhere.example.com', 'proxy', open)).ok).toBe(false);
  });

  it('leaves names to the connect-time lookup and judges literals itself', () => {
    expect(checkLiteralHost('proxy.example.com', { allowPrivateNetworks: false })).toBeNull();
    expect(checkLiteralHost('::1', { allowPrivateNetworks: false })).toEqual({
      ok: false,
      reason: 'points to ::1, a loopback address',
    });
    expect(checkLiteralHost('::1', { allowPrivateNetworks: true })).toEqual({ ok: true });
  });
});
