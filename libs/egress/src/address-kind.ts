/**
 * What an IP address is, as far as outbound requests care: only `public` may be reached from a
 * customer-given URL; every other kind names why not, so refusals can say so in plain words.
 */
export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'site-local'
  | 'carrier-grade-nat'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved';

const phrases: Record<AddressKind, string> = {
  // Stryker disable next-line StringLiteral: equivalent, only refusals are worded and a public address is never refused
  public: 'a public address',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  'unique-local': 'a unique-local (private) address',
  'site-local': 'a site-local (private) address',
  'carrier-grade-nat': 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  documentation: 'a documentation address',
  benchmarking: 'a benchmarking address',
  reserved: 'a reserved address',
};

/** "a private address", "an unspecified address": the words refusals put after the address. */
export function describeAddressKind(kind: AddressKind): string {
  return phrases[kind];
}
