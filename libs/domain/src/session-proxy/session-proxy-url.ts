/** The proxy kinds a session can use: an HTTP proxy (CONNECT tunnels), over TLS or not, or SOCKS5. */
export const SESSION_PROXY_PROTOCOLS = ['http', 'https', 'socks5', 'socks5h'] as const;
export type SessionProxyProtocol = (typeof SESSION_PROXY_PROTOCOLS)[number];

/** The longest proxy URL accepted (a URL with a long password still fits). */
export const SESSION_PROXY_URL_MAX_LENGTH = 2048;

const DEFAULT_PORTS: Record<SessionProxyProtocol, number> = {
  http: 80,
  https: 443,
  socks5: 1080,
  socks5h: 1080,
};

/** A proxy URL that passed the shape check, its parts as a connection needs them. */
export interface SessionProxyUrl {
  protocol: SessionProxyProtocol;
  /** Lower-cased host name or IP literal (IPv6 without brackets), as the connection dials it. */
  host: string;
  port: number;
  /** Decoded; empty when the proxy asks for none. */
  username: string;
  password: string;
  /** The URL in canonical form (`socks5://user:pass@host:1080`), what is sealed and dialled. */
  href: string;
}

export type SessionProxyUrlVerdict = { ok: true; proxy: SessionProxyUrl } | { ok: false; reason: string };

/**
 * What can be said about a session's proxy URL without the network: `http://`, `https://`,
 * `socks5://` or `socks5h://` (the proxy resolves the names), a host, an optional port and
 * credentials, and nothing else (a path, query or fragment means the value is not a proxy URL).
 * Whether the host is allowed (public, or the operator allows private networks) is the egress
 * policy's question, asked when the proxy is saved and again whenever a connection dials it.
 */
export function parseSessionProxyUrl(raw: string): SessionProxyUrlVerdict {
  if (raw.length > SESSION_PROXY_URL_MAX_LENGTH) {
    return refuse(`url must be at most ${SESSION_PROXY_URL_MAX_LENGTH} characters`);
  }
  const notAbsolute = 'url must be an absolute proxy URL such as socks5://user:pass@proxy.example.com:1080';
  // `proxy.example.com:1080` would parse as a URL of scheme `proxy.example.com`.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return refuse(notAbsolute);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(notAbsolute);
  }
  const protocol = url.protocol.slice(0, -1);
  if (!isProxyProtocol(protocol)) {
    return refuse(`url must use ${SESSION_PROXY_PROTOCOLS.join(', ')}, not ${protocol}`);
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    return refuse('url must be only scheme, credentials, host and port (no path, query or fragment)');
  }
  // socks5:// is no scheme the URL parser knows: parse the authority again as http's, so the host
  // is canonical (lower case, `0x7f.1` read as 127.0.0.1) whatever the scheme.
  let authority: URL;
  try {
    authority = new URL(`http://${url.host}`);
  } catch {
    return refuse('url must name a valid host');
  }
  if (authority.hostname === '') return refuse('url must name a host');
  const port = url.port === '' ? DEFAULT_PORTS[protocol] : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return refuse('url must have a port from 1 to 65535');
  let username: string;
  let password: string;
  try {
    username = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    return refuse('url credentials must be percent-encoded correctly');
  }
  const host = unbracketed(authority.hostname);
  const userinfo =
    url.username === '' && url.password === ''
      ? ''
      : `${url.username}${url.password === '' ? '' : `:${url.password}`}@`;
  const href = `${protocol}://${userinfo}${authority.hostname}:${port}`;
  return { ok: true, proxy: { protocol, host, port, username, password, href } };
}

function isProxyProtocol(protocol: string): protocol is SessionProxyProtocol {
  return (SESSION_PROXY_PROTOCOLS as readonly string[]).includes(protocol);
}

/** `[::1]` → `::1`: what sockets and address checks take. */
function unbracketed(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function refuse(reason: string): SessionProxyUrlVerdict {
  return { ok: false, reason };
}
