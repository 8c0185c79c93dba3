import type { AddressKind } from './address-kind';
import { classifyAddress, isPublicAddress } from './classify-address';

describe('isPublicAddress', () => {
  const notPublic: [string, string][] = [
    // IPv4 special-purpose ranges
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback, end of 127/8'],
    ['10.0.0.5', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12, start'],
    ['172.31.255.255', 'private 172.16/12, end'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT, start'],
    ['100.127.255.255', 'carrier-grade NAT, end'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast (SSDP)'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', '0.0.0.0/8'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved 240/4'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.10', 'TEST-NET-1'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking, end'],
    ['192.88.99.1', '6to4 relay anycast'],
    // numeric forms the WHATWG URL parser turns into 127.0.0.1
    ['2130706433', 'decimal'],
    ['0177.0.0.1', 'octal'],
    ['0x7f.1', 'hex, two parts'],
    ['0x7f000001', 'hex, one part'],
    ['127.1', 'short'],
    ['127.0.1', 'three parts'],
    ['0', 'zero as a number'],
    ['012.0.0.1', 'octal 10.0.0.1'],
    ['3232235777', 'decimal 192.168.1.1'],
    ['127.0.0.1.', 'trailing dot'],
    // IPv6
    ['::1', 'loopback'],
    ['[::1]', 'loopback, bracketed'],
    ['0:0:0:0:0:0:0:1', 'loopback, long form'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone id'],
    ['febf:ffff::1', 'link-local, end of fe80::/10'],
    ['fc00::1', 'unique-local fc00::/7'],
    ['fd12:3456:789a::1', 'unique-local fd'],
    ['fec0::1', 'deprecated site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation (RFC 9637)'],
    ['2001:2::1', 'benchmarking'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['100::1', 'discard-only'],
    ['5f00::1', 'segment routing, outside 2000::/3'],
    ['4000::1', 'unassigned, outside 2000::/3'],
    // IPv6 forms that embed an IPv4 address
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['[::ffff:7f00:1]', 'IPv4-mapped loopback, as a URL host'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex'],
    ['::8.8.8.8', 'IPv4-compatible, deprecated even when public'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated (RFC 6145) loopback'],
    ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
    ['64:ff9b::a00:1', 'NAT64 10.0.0.1'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    // not an IP address at all
    ['example.com', 'a host name'],
    ['localhost', 'a host name'],
    ['', 'empty'],
    ['256.1.1.1', 'out of range'],
    ['1.2.3.4.5', 'five parts'],
    ['08.0.0.1', 'invalid octal'],
    [' 8.8.8.8', 'leading space'],
    ['8.8.8.8@127.0.0.1', 'URL userinfo smuggling'],
    // an IPv6-looking text that puts a public host after an @: a URL would connect to that host
    ['::1@[2606:4700:4700::1111', 'userinfo smuggling of a bracketed IPv6 host'],
    ['127.0.0.1@[2606:4700:4700::1111', 'userinfo smuggling after an IPv4 address'],
    ['8.8.8.8/24', 'CIDR'],
    ['::gg', 'bad IPv6'],
  ];

  const isPublic: [string, string][] = [
    ['8.8.8.8', 'Google DNS'],
    ['1.1.1.1', 'Cloudflare DNS'],
    ['93.184.216.34', 'an ordinary web host'],
    ['172.15.255.255', 'just below 172.16/12'],
    ['172.32.0.1', 'just above 172.16/12'],
    ['100.63.255.255', 'just below CGNAT'],
    ['100.128.0.1', 'just above CGNAT'],
    ['11.0.0.1', 'just above 10/8'],
    ['223.255.255.254', 'just below multicast'],
    ['134744072', 'decimal form of 8.8.8.8'],
    ['0x08.0x08.0x08.0x08', 'hex form of 8.8.8.8'],
    ['2606:4700:4700::1111', 'Cloudflare DNS over IPv6'],
    ['2a00:1450:4001:80b::200e', 'an ordinary IPv6 host'],
    ['[2606:4700:4700::1111]', 'bracketed'],
    ['2001:200::1', 'just above 2001::/23'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public'],
    ['64:ff9b::808:808', 'NAT64 of 8.8.8.8 (IPv6-only networks need it)'],
    ['2002:808:808::1', '6to4 of 8.8.8.8'],
  ];

  it.each(notPublic)('%s is not public (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(isPublic)('%s is public (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});

describe('classifyAddress', () => {
  const kinds: [string, AddressKind | null][] = [
    ['10.0.0.5', 'private'],
    ['127.1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade-nat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['::', 'unspecified'],
    ['fd00::1', 'unique-local'],
    ['fe80::1%lo', 'link-local'],
    ['::ffff:192.168.0.1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['8.8.8.8', 'public'],
    ['example.com', null],
    ['cafe', null],
    ['::1@[2606:4700:4700::1111', null],
    ['8.8.8.8@[::1', null],
  ];

  it.each(kinds)('%s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it('agrees with the URL parser on every numeric form', () => {
    for (const host of ['2130706433', '0177.0.0.1', '0x7f.1', '127.1', '0x7f000001']) {
      const { hostname } = new URL(`http://${host}/`);
      expect(hostname).toBe('127.0.0.1');
      expect(classifyAddress(host)).toBe(classifyAddress(hostname));
    }
  });
});
