import type { LookupAddress, LookupOptions } from 'node:dns';
import { classifyAddress } from './classify-address';
import { createGuardedLookup } from './create-guarded-lookup';
import type { EgressPolicyOptions } from './egress-policy-options';
import { parseIpLiteral } from './parse-ip-literal';
import { fakeResolver } from './test-support/fake-resolver';
import { UrlPolicy } from './url-policy';

/** Edges of the SSRF filter that mutation testing found untested (npm run mutation egress). */
describe('egress edges', () => {
  it('refuses the IPv4-translated and IPv4-compatible forms even around a public address', () => {
    // No legitimate public use: a dual-stack host may still connect them to the embedded address.
    expect(classifyAddress('::ffff:0:8.8.8.8')).toBe('reserved');
    expect(classifyAddress('::8.8.8.8')).toBe('reserved');
    expect(classifyAddress('::ffff:0:10.0.0.5')).toBe('private');
  });

  it.each([
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['198.18.0.1', 'a benchmarking address'],
    ['240.0.0.1', 'a reserved address'],
    ['192.0.2.1', 'a documentation address'],
  ])('tells the customer why http://%s/ is refused: %s', async (ip, words) => {
    const verdict = await new UrlPolicy({ allowPrivateNetworks: false, resolver: fakeResolver([]) }).check(
      `http://${ip}/hook`,
    );
    expect(verdict).toEqual({ ok: false, reason: expect.stringContaining(`url points to ${ip}, ${words};`) });
  });

  it('reads a bracketed IPv6 address only with both brackets', () => {
    expect(parseIpLiteral('[::1]')?.toString()).toBe('::1');
    expect(parseIpLiteral('[::1')).toBeNull();
    expect(parseIpLiteral('::1]')).toBeNull();
    expect(parseIpLiteral('x::1]')).toBeNull();
    // A zone id belongs to IPv6 only: on anything else the `%` makes it no address.
    expect(parseIpLiteral('127.0.0.1%eth0')).toBeNull();
  });

  it('fails a name that resolves to nothing like dns.lookup does, so callers report a DNS error', async () => {
    const policy: EgressPolicyOptions = { allowPrivateNetworks: false, resolver: fakeResolver([]) };
    const failure = await new Promise<unknown>((resolve) =>
      createGuardedLookup(policy)('nowhere.example', {} as LookupOptions, (error) => resolve(error)),
    );
    expect(failure).toMatchObject({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND nowhere.example' });
  });

  it('never hands the socket something that is not an address, private networks allowed or not', async () => {
    const policy: EgressPolicyOptions = {
      allowPrivateNetworks: true,
      resolver: fakeResolver(['not-an-address', '10.0.0.5']),
    };
    const answer = await new Promise<{ address: string | LookupAddress[]; family?: number }>(
      (resolve, reject) =>
        createGuardedLookup(policy)('internal.example', {} as LookupOptions, (error, address, family) =>
          error ? reject(error) : resolve({ address, family }),
        ),
    );
    expect(answer).toEqual({ address: '10.0.0.5', family: 4 });
  });
});
