import ipaddr from 'ipaddr.js';
import type { AddressKind } from './address-kind';
import { parseIpLiteral } from './parse-ip-literal';

type Ipv4Range = [ipaddr.IPv4, number, AddressKind];
type Ipv6Range = [ipaddr.IPv6, number, AddressKind];

function v4(cidr: string, kind: AddressKind): Ipv4Range {
  const [address, bits] = ipaddr.IPv4.parseCIDR(cidr);
  return [address, bits, kind];
}

function v6(cidr: string, kind: AddressKind): Ipv6Range {
  const [address, bits] = ipaddr.IPv6.parseCIDR(cidr);
  return [address, bits, kind];
}

/**
 * IPv4 space is almost all allocated, so it is a deny list: the IANA special-purpose ranges that are
 * not globally reachable (RFC 6890 and successors). Narrower ranges come first so that the most
 * specific name is the one a refusal gives.
 */
const ipv4NonPublic: Ipv4Range[] = [
  v4('0.0.0.0/32', 'unspecified'),
  v4('255.255.255.255/32', 'broadcast'),
  v4('0.0.0.0/8', 'reserved'), // "this network": some stacks connect it to the local host
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'carrier-grade-nat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'), // includes cloud metadata endpoints (169.254.169.254)
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', 'reserved'), // deprecated 6to4 relay anycast
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
];

/** Only global unicast (2000::/3) can be public; the ranges below are the exceptions inside it. */
const ipv6GlobalUnicast = v6('2000::/3', 'public');
const ipv6NonPublicInGlobalUnicast: Ipv6Range[] = [
  v6('2001:2::/48', 'benchmarking'),
  v6('2001:db8::/32', 'documentation'),
  v6('2001::/23', 'reserved'), // IETF protocol assignments: Teredo, ORCHID, benchmarking, ...
  v6('3fff::/20', 'documentation'),
];
/** Names for the well-known ranges outside 2000::/3; anything else there is simply `reserved`. */
const ipv6NonPublicOutsideGlobalUnicast: Ipv6Range[] = [
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local'),
  v6('fc00::/7', 'unique-local'),
  v6('ff00::/8', 'multicast'),
  v6('64:ff9b:1::/48', 'private'), // NAT64 for local use (RFC 8215): translates into the site
];

/**
 * Ranges that carry an IPv4 address inside an IPv6 one; a connection to them reaches (or is meant
 * to reach) that IPv4 host, so they are exactly as public as the IPv4 address they embed.
 * `firstByte` is where the 4 embedded bytes start in the 16-byte address.
 */
const ipv4Embedding: { range: Ipv6Range; firstByte: number; onlyIfNotPublic: boolean }[] = [
  // ::ffff:a.b.c.d, IPv4-mapped: dual-stack sockets connect it straight to a.b.c.d.
  // Stryker disable next-line BooleanLiteral: equivalent, this range's kind is `public` itself, so the flag cannot change the answer
  { range: v6('::ffff:0:0/96', 'public'), firstByte: 12, onlyIfNotPublic: false },
  // 64:ff9b::a.b.c.d, the well-known NAT64 prefix: IPv6-only networks reach public IPv4 through it.
  // Stryker disable next-line BooleanLiteral: equivalent, this range's kind is `public` itself, so the flag cannot change the answer
  { range: v6('64:ff9b::/96', 'public'), firstByte: 12, onlyIfNotPublic: false },
  // 2002:AABB:CCDD::/48, 6to4: tunnels to the embedded IPv4 host.
  // Stryker disable next-line BooleanLiteral: equivalent, this range's kind is `public` itself, so the flag cannot change the answer
  { range: v6('2002::/16', 'public'), firstByte: 2, onlyIfNotPublic: false },
  // ::ffff:0:a.b.c.d (RFC 6145) and ::a.b.c.d (IPv4-compatible, deprecated) have no legitimate
  // public use: they are refused either way, named after the embedded address when it says more.
  { range: v6('::ffff:0:0:0/96', 'reserved'), firstByte: 12, onlyIfNotPublic: true },
  { range: v6('::/96', 'reserved'), firstByte: 12, onlyIfNotPublic: true },
];

function classifyIpv4(address: ipaddr.IPv4): AddressKind {
  for (const [network, bits, kind] of ipv4NonPublic) {
    if (address.match(network, bits)) return kind;
  }
  return 'public';
}

function classifyIpv6(address: ipaddr.IPv6): AddressKind {
  // :: and ::1 also lie inside ::/96 below; they are not embedded IPv4 addresses.
  // Stryker disable next-line ConditionalExpression: equivalent, `::` in ::/96 embeds 0.0.0.0, `unspecified` too
  if (address.match(ipaddr.IPv6.parse('::'), 128)) return 'unspecified';
  if (address.match(ipaddr.IPv6.parse('::1'), 128)) return 'loopback';

  for (const { range, firstByte, onlyIfNotPublic } of ipv4Embedding) {
    const [network, bits, kindWhenPublic] = range;
    if (!address.match(network, bits)) continue;
    const embedded = new ipaddr.IPv4(address.toByteArray().slice(firstByte, firstByte + 4));
    const embeddedKind = classifyIpv4(embedded);
    if (embeddedKind !== 'public') return embeddedKind;
    return onlyIfNotPublic ? kindWhenPublic : 'public';
  }

  const [globalNetwork, globalBits] = ipv6GlobalUnicast;
  const inGlobalUnicast = address.match(globalNetwork, globalBits);
  const exceptions = inGlobalUnicast ? ipv6NonPublicInGlobalUnicast : ipv6NonPublicOutsideGlobalUnicast;
  for (const [network, bits, kind] of exceptions) {
    if (address.match(network, bits)) return kind;
  }
  return inGlobalUnicast ? 'public' : 'reserved';
}

/**
 * The kind of an IP address in any form a URL host or dns.lookup may give (see parseIpLiteral),
 * or null when the text is not an IP address at all (a host name, garbage).
 */
export function classifyAddress(ip: string): AddressKind | null {
  const address = parseIpLiteral(ip);
  if (address === null) return null;
  return address.kind() === 'ipv4'
    ? classifyIpv4(address as ipaddr.IPv4)
    : classifyIpv6(address as ipaddr.IPv6);
}

/**
 * True only for an IP address that is globally reachable unicast. Host names and unparsable text
 * are not public addresses: resolve names first (UrlPolicy, createGuardedLookup).
 */
export function isPublicAddress(ip: string): boolean {
  return classifyAddress(ip) === 'public';
}
