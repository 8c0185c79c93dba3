import ipaddr from 'ipaddr.js';

/**
 * Reads an IP address the way a URL does. A WHATWG URL parser turns `2130706433`, `0177.0.0.1`,
 * `0x7f.1` and `127.1` into `127.0.0.1`, and Node's http client connects to what the parser
 * produced; so the address is canonicalised by that same parser (not by a second, subtly different
 * one) before anything is decided about it. Accepts bare or bracketed IPv6 and drops a zone id
 * (`fe80::1%eth0`, as dns.lookup may return). Returns null for anything that is not an IP address.
 */
export function parseIpLiteral(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  let candidate = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const isIpv6 = candidate.includes(':');
  // Stryker disable next-line Regex: equivalent without `$`, a text with two `%` keeps one either way and the check below refuses it
  if (isIpv6) candidate = candidate.replace(/%[^%]*$/, '');
  // Only address characters go near the URL parser: `8.8.8.8@127.0.0.1` or `a/b` must not be read
  // as a URL with some other host in it.
  const allowed = isIpv6 ? /^[0-9a-f:.]+$/i : /^[0-9a-fx.]+$/i;
  if (!allowed.test(candidate)) return null;

  let hostname: string;
  try {
    hostname = new URL(`http://${isIpv6 ? `[${candidate}]` : candidate}/`).hostname;
  } catch {
    return null; // e.g. `256.1.1.1` or `1.2.3.4.5`: no URL could point there
  }
  if (isIpv6) return ipaddr.IPv6.parse(hostname.slice(1, -1));
  // A hostname that merely looks hex-ish (`abc`, `cafe.be`) stays a name: not an address.
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? ipaddr.IPv4.parse(hostname) : null;
}
