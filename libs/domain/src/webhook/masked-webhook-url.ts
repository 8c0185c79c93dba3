/** What stands in for every hidden part of a webhook URL. */
export const URL_MASK = '****';

/**
 * Whether a webhook URL carries anything beyond scheme, host, port and path: a query (any query
 * at all, since `?token=`, `?key=`, `?sig=` and countless other names hold credentials), a
 * username or password, or a fragment. Such URLs are stored sealed and shown masked; a path is
 * always shown as it is.
 */
export function webhookUrlHasSecrets(raw: string): boolean {
  const url = parse(raw);
  return url === null || url.search !== '' || url.username !== '' || url.password !== '' || url.hash !== '';
}

/**
 * The form of a webhook URL that may be shown and logged: every query value, the userinfo and
 * the fragment replaced by `****`, the parameter names kept so the owner recognises the URL
 * (`https://hooks.example.com/in?token=****`). Masking a masked URL changes nothing; a string that
 * is not a URL is masked whole.
 */
export function maskWebhookUrl(raw: string): string {
  const url = parse(raw);
  if (url === null) return URL_MASK;
  if (!webhookUrlHasSecrets(raw)) return raw;
  const userinfo = url.username !== '' || url.password !== '' ? `${URL_MASK}@` : '';
  const query = url.search === '' ? '' : `?${maskQuery(url.search.slice(1))}`;
  const fragment = url.hash === '' ? '' : `#${URL_MASK}`;
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${query}${fragment}`;
}

function maskQuery(query: string): string {
  return query
    .split('&')
    .map((part) => {
      if (part === '') return part;
      const equals = part.indexOf('=');
      // A part with no name (`?=x`) or no `=` at all (`?s3cr3t`) may be the secret itself.
      return equals > 0 ? `${part.slice(0, equals)}=${URL_MASK}` : URL_MASK;
    })
    .join('&');
}

function parse(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}
