import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockedAddressError } from './blocked-address-error';
import { createGuardedLookup } from './create-guarded-lookup';
import type { EgressPolicyOptions } from './egress-policy-options';
import { dnsNotFound, fakeResolver } from './test-support/fake-resolver';

/** Calls the lookup the way net.connect does and hands back what it answered. */
function lookUp(
  policy: EgressPolicyOptions,
  host: string,
  options: LookupOptions,
): Promise<{ address: string | LookupAddress[]; family?: number }> {
  return new Promise((resolve, reject) => {
    createGuardedLookup(policy)(host, options, (error, address, family) =>
      error ? reject(error) : resolve({ address, family }),
    );
  });
}

describe('createGuardedLookup', () => {
  it('answers like dns.lookup: first address and family, or all of them', async () => {
    const policy = { allowPrivateNetworks: false, resolver: fakeResolver(['93.184.216.34', '2606:2800::1']) };
    expect(await lookUp(policy, 'example.com', {})).toEqual({ address: '93.184.216.34', family: 4 });
    expect(await lookUp(policy, 'example.com', { all: true })).toEqual({
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800::1', family: 6 },
      ],
      family: undefined,
    });
  });

  it('honours the requested family', async () => {
    const policy = { allowPrivateNetworks: false, resolver: fakeResolver(['93.184.216.34', '2606:2800::1']) };
    expect(await lookUp(policy, 'example.com', { family: 6 })).toEqual({
      address: '2606:2800::1',
      family: 6,
    });
    expect(await lookUp(policy, 'example.com', { family: 'IPv4' })).toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('fails with BlockedAddressError when the name now resolves to a non-public address', async () => {
    const policy = { allowPrivateNetworks: false, resolver: fakeResolver(['93.184.216.34', '10.0.0.5']) };
    const failure = lookUp(policy, 'rebind.example.com', { all: true });
    await expect(failure).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(failure).rejects.toMatchObject({
      code: 'blocked_address',
      host: 'rebind.example.com',
      address: '10.0.0.5',
      kind: 'private',
      message: 'blocked: rebind.example.com resolves to 10.0.0.5, a private address',
    });
  });

  it('refuses even an address of a family that was not asked for (every address must be public)', async () => {
    const policy = { allowPrivateNetworks: false, resolver: fakeResolver(['93.184.216.34', '::1']) };
    await expect(lookUp(policy, 'example.com', { family: 4 })).rejects.toBeInstanceOf(BlockedAddressError);
  });

  it('lets non-public addresses through when private networks are allowed', async () => {
    const policy = { allowPrivateNetworks: true, resolver: fakeResolver(['127.0.0.1']) };
    expect(await lookUp(policy, 'localhost', {})).toEqual({ address: '127.0.0.1', family: 4 });
  });

  it('passes DNS failures through, and reports an empty answer as ENOTFOUND', async () => {
    const failing = { allowPrivateNetworks: false, resolver: fakeResolver(dnsNotFound('nowhere.invalid')) };
    await expect(lookUp(failing, 'nowhere.invalid', {})).rejects.toMatchObject({ code: 'ENOTFOUND' });
    const empty = { allowPrivateNetworks: false, resolver: fakeResolver([]) };
    await expect(lookUp(empty, 'empty.example.com', {})).rejects.toMatchObject({ code: 'ENOTFOUND' });
    const onlyV4 = { allowPrivateNetworks: false, resolver: fakeResolver(['93.184.216.34']) };
    await expect(lookUp(onlyV4, 'example.com', { family: 6 })).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
