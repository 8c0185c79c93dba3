/**
 * A session's proxy could not be used: not allowed by the egress policy, unreachable, or it
 * refused the tunnel. The message names the proxy masked (never its password), so the customer
 * who set it sees which proxy failed and why.
 */
export class SessionProxyError extends Error {
  override readonly name = 'SessionProxyError';

  constructor(
    /** The proxy as it may be shown: `socks5://user:****@proxy.example.com:1080`. */
    readonly proxy: string,
    reason: string,
  ) {
    super(`could not connect through the session's proxy ${proxy}: ${reason}`);
  }
}
