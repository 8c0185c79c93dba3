import type { UrlVerdict } from './url-verdict';

/**
 * What can be said about a URL without the network: absolute, http or https, no credentials.
 * Credentials are refused because they would be sent to the customer's host in every request and
 * end up stored with the URL in plain text.
 */
export function checkUrlShape(raw: string): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `url must use http or https, not ${url.protocol.slice(0, -1)}` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'url must not contain a username or password' };
  }
  // Stryker disable all: unreachable (the WHATWG URL parser already refuses an http(s) URL without a host), so no mutant here changes behaviour
  if (url.hostname === '') {
    return { ok: false, reason: 'url must name a host' };
  }
  // Stryker restore all
  return { ok: true, url };
}
