import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { BlockedAddressError } from './blocked-address-error';
import { classifyAddress } from './classify-address';
import type { EgressPolicyOptions } from './egress-policy-options';
import { systemResolver } from './host-resolver';

/**
 * A `lookup` for `http.request`, `net.connect`, `tls.connect` or undici's `connect` options. The
 * socket connects to exactly the addresses this returns, so checking them here (rather than in an
 * earlier, separate resolution) leaves no window for DNS rebinding: a name that resolved to a
 * public address when the URL was saved and to 10.0.0.5 now fails with BlockedAddressError before
 * any connection is attempted.
 *
 * Node skips `lookup` for IP literals; callers must check those themselves (safeFetch does).
 */
export function createGuardedLookup(options: EgressPolicyOptions): LookupFunction {
  const resolve = options.resolver ?? systemResolver;

  return (hostname, lookupOptions, callback) => {
    Promise.resolve()
      .then(() => resolve(hostname))
      .then(
        (resolved) => {
          // All of them, like UrlPolicy: with happy eyeballs (`all: true`) Node may try any.
          if (!options.allowPrivateNetworks) {
            for (const address of resolved) {
              const kind = classifyAddress(address) ?? 'reserved';
              if (kind !== 'public') {
                // Stryker disable next-line StringLiteral: equivalent, Node ignores the address passed beside an error
                callback(new BlockedAddressError(hostname, address, kind), '');
                return;
              }
            }
          }

          // Stryker disable OptionalChaining: equivalent (both `lookupOptions?.` below), Node always passes an options object to a custom lookup
          const wanted = familyNumber(lookupOptions?.family);
          const addresses: LookupAddress[] = resolved
            .map((address) => ({ address, family: isIP(address) }))
            .filter(({ family }) => family !== 0 && (wanted === 0 || family === wanted));
          if (addresses.length === 0) {
            // Stryker disable next-line StringLiteral: equivalent, Node ignores the address passed beside an error
            callback(notFound(hostname), '');
          } else if (lookupOptions?.all) {
            callback(null, addresses);
          } else {
            callback(null, addresses[0].address, addresses[0].family);
          }
        },
        // Stryker disable next-line StringLiteral: equivalent, Node ignores the address passed beside an error
        (error: NodeJS.ErrnoException) => callback(error, ''),
      );
  };
}

// Stryker restore OptionalChaining
function familyNumber(family: number | 'IPv4' | 'IPv6' | undefined): number {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return family ?? 0;
}

/** Shaped like dns.lookup's own failure, so callers map it as a DNS error. */
function notFound(hostname: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  error.code = 'ENOTFOUND';
  return error;
}
