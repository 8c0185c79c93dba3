import http from 'node:http';
import https from 'node:https';
import type { SessionProxyAgents } from './proxy-agents';
import { SessionProxyError } from './session-proxy-error';

/**
 * Opens one tunnel through the session's proxy to WhatsApp's WebSocket host and closes it at
 * once, so a session whose proxy is down, refuses its credentials or is not allowed fails its
 * start with an error naming the proxy, instead of retrying a socket that can never open. Nothing
 * is sent through the tunnel (it is closed as soon as the proxy reports it open).
 */
export function probeSessionProxy(
  proxy: SessionProxyAgents,
  target: string,
  timeoutMs: number,
): Promise<void> {
  const url = new URL(target);
  const secure = url.protocol === 'wss:' || url.protocol === 'https:';
  const request = (secure ? https : http).request({
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: '/',
    method: 'GET',
    agent: proxy.agent,
  });
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (failure?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      if (failure === undefined) resolve();
      else reject(new SessionProxyError(proxy.masked, failure));
    };
    const timer = setTimeout(() => settle(`no tunnel within ${timeoutMs} ms`), timeoutMs);
    // An HTTP proxy answers the CONNECT first (https-proxy-agent reports it); then either proxy
    // kind reports the tunnel. Errors after the probe settled (the destroyed request) are moot.
    request.on('proxyConnect', (connect: { statusCode?: number; statusText?: string }) => {
      if (connect.statusCode !== 200) {
        settle(
          `the proxy answered ${connect.statusCode ?? '?'} ${connect.statusText ?? ''} to CONNECT`.trim(),
        );
      }
    });
    request.on('proxy', () => settle());
    request.on('error', (error: Error) => settle(error.message || String(error)));
    request.end();
  });
}
