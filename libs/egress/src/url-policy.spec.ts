import { systemResolver } from './host-resolver';
import { dnsNotFound, fakeResolver } from './test-support/fake-resolver';
import { UrlPolicy } from './url-policy';

const mustBePublic = 'webhook and media URLs must be public';

describe('UrlPolicy', () => {
  it('accepts an http(s) URL whose host resolves only to public addresses', async () => {
    const resolver = fakeResolver(['93.184.216.34', '2606:2800:220:1::1']);
    const verdict = await new UrlPolicy({ allowPrivateNetworks: false, resolver }).check(
      'https://hooks.example.com/in?token=1',
    );
    expect(verdict).toEqual({ ok: true, url: new URL('https://hooks.example.com/in?token=1') });
    expect(resolver.calls).toEqual(['hooks.example.com']);
  });

  it('refuses a host that resolves to a private address, with a sentence for the customer', async () => {
    const policy = new UrlPolicy({ allowPrivateNetworks: false, resolver: fakeResolver(['10.0.0.5']) });
    expect(await policy.check('http://internal.example.com/')).toEqual({
      ok: false,
      reason: `url resolves to 10.0.0.5, a private address; ${mustBePublic}`,
    });
  });

  it('refuses when any one of the resolved addresses is not public', async () => {
    const policy = new UrlPolicy({
      allowPrivateNetworks: false,
      resolver: fakeResolver(['93.184.216.34', '::1']),
    });
    expect(await policy.check('http://mixed.example.com/')).toEqual({
      ok: false,
      reason: `url resolves to ::1, a loopback address; ${mustBePublic}`,
    });
  });

  it('judges each check on a fresh resolution (a rebinding name flips from public to private)', async () => {
    const resolver = fakeResolver(['93.184.216.34'], ['169.254.169.254']);
    const policy = new UrlPolicy({ allowPrivateNetworks: false, resolver });
    expect((await policy.check('http://rebind.example.com/')).ok).toBe(true);
    expect(await policy.check('http://rebind.example.com/')).toEqual({
      ok: false,
      reason: `url resolves to 169.254.169.254, a link-local address; ${mustBePublic}`,
    });
    expect(resolver.calls).toHaveLength(2);
  });

  it.each([
    ['http://127.0.0.1/', '127.0.0.1', 'a loopback address'],
    ['http://2130706433/', '127.0.0.1', 'a loopback address'],
    ['http://0177.0.0.1/', '127.0.0.1', 'a loopback address'],
    ['http://0x7f.1/', '127.0.0.1', 'a loopback address'],
    ['http://127.1:8080/', '127.0.0.1', 'a loopback address'],
    ['http://[::1]/', '::1', 'a loopback address'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1', 'a loopback address'],
    ['http://[::ffff:a00:1]/', '::ffff:a00:1', 'a private address'],
    ['http://[fe80::1]/', 'fe80::1', 'a link-local address'],
    ['http://0.0.0.0/', '0.0.0.0', 'an unspecified address'],
    ['http://100.64.1.1/', '100.64.1.1', 'a carrier-grade NAT (shared) address'],
    // Every other kind of address, named in the refusal the customer reads.
    ['http://10.1.2.3/', '10.1.2.3', 'a private address'],
    ['http://[fd12:3456::1]/', 'fd12:3456::1', 'a unique-local (private) address'],
    ['http://[fec0::1]/', 'fec0::1', 'a site-local (private) address'],
    ['http://224.0.0.251/', '224.0.0.251', 'a multicast address'],
    ['http://255.255.255.255/', '255.255.255.255', 'a broadcast address'],
    ['http://192.0.2.10/', '192.0.2.10', 'a documentation address'],
    ['http://198.18.0.1/', '198.18.0.1', 'a benchmarking address'],
    ['http://240.0.0.1/', '240.0.0.1', 'a reserved address'],
  ])('refuses the IP literal %s without asking DNS', async (url, shown, phrase) => {
    const resolver = fakeResolver(['93.184.216.34']);
    const verdict = await new UrlPolicy({ allowPrivateNetworks: false, resolver }).check(url);
    expect(verdict).toEqual({ ok: false, reason: `url points to ${shown}, ${phrase}; ${mustBePublic}` });
    expect(resolver.calls).toEqual([]);
  });

  it('accepts a public IP literal without asking DNS', async () => {
    const resolver = fakeResolver(['10.0.0.1']);
    const policy = new UrlPolicy({ allowPrivateNetworks: false, resolver });
    expect((await policy.check('http://8.8.8.8/x')).ok).toBe(true);
    expect((await policy.check('https://[2606:4700:4700::1111]:8443/')).ok).toBe(true);
    expect(resolver.calls).toEqual([]);
  });

  it.each([
    ['ftp://example.com/file', 'url must use http or https, not ftp'],
    ['file:///etc/passwd', 'url must use http or https, not file'],
    ['javascript:alert(1)', 'url must use http or https, not javascript'],
    ['not a url', 'url must be an absolute http or https URL'],
    ['/relative/path', 'url must be an absolute http or https URL'],
    ['http://user:pass@example.com/', 'url must not contain a username or password'],
    ['http://user@example.com/', 'url must not contain a username or password'],
    ['http://:secret@example.com/', 'url must not contain a username or password'],
  ])('refuses %s', async (url, reason) => {
    const policy = new UrlPolicy({ allowPrivateNetworks: true, resolver: fakeResolver(['93.184.216.34']) });
    expect(await policy.check(url)).toEqual({ ok: false, reason });
  });

  it('refuses a host that does not resolve, or resolves to nothing', async () => {
    const failing = new UrlPolicy({
      allowPrivateNetworks: false,
      resolver: fakeResolver(dnsNotFound('nowhere.invalid')),
    });
    expect(await failing.check('http://nowhere.invalid/')).toEqual({
      ok: false,
      reason: 'url host nowhere.invalid could not be resolved',
    });
    const empty = new UrlPolicy({ allowPrivateNetworks: true, resolver: fakeResolver([]) });
    expect((await empty.check('http://empty.example.com/')).ok).toBe(false);
  });

  it('lets private addresses through when the operator allows private networks', async () => {
    const policy = new UrlPolicy({ allowPrivateNetworks: true, resolver: fakeResolver(['10.0.0.5']) });
    expect((await policy.check('http://internal.example.com/')).ok).toBe(true);
    expect((await policy.check('http://127.0.0.1:3000/hook')).ok).toBe(true);
  });

  it('asks the resolver for the host as the URL parser normalised it', async () => {
    const resolver = fakeResolver(['93.184.216.34']);
    await new UrlPolicy({ allowPrivateNetworks: false, resolver }).check('http://HOOKS.Example.COM./x');
    await new UrlPolicy({ allowPrivateNetworks: false, resolver }).check('http://bücher.example/');
    expect(resolver.calls).toEqual(['hooks.example.com.', 'xn--bcher-kva.example']);
  });

  it('uses dns.lookup by default (an IP literal, so nothing leaves the machine)', async () => {
    expect(await systemResolver('127.0.0.1')).toEqual(['127.0.0.1']);
  });
});
