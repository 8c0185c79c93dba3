import { parseSessionProxyUrl } from './session-proxy-url';

/** What stands in for a proxy's password wherever the proxy is shown or logged. */
export const PROXY_PASSWORD_MASK = '****';

/**
 * The form of a proxy URL that may be shown and logged: the password replaced by `****`, the
 * user name kept so the owner recognises which account of the proxy provider it is
 * (`socks5://user:****@proxy.example.com:1080`). A string that is not a proxy URL is masked
 * whole, since it may be a password pasted by mistake.
 */
export function maskProxyUrl(raw: string): string {
  const verdict = parseSessionProxyUrl(raw);
  if (!verdict.ok) return PROXY_PASSWORD_MASK;
  const { protocol, username, password, host, port } = verdict.proxy;
  const user = username === '' ? '' : encodeURIComponent(username);
  const secret = password === '' ? '' : `:${PROXY_PASSWORD_MASK}`;
  const userinfo = user === '' && secret === '' ? '' : `${user}${secret}@`;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return `${protocol}://${userinfo}${shownHost}:${port}`;
}
