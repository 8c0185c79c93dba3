import { maskProxyUrl, parseSessionProxyUrl, type SessionProxyUrl } from '@jumbe/domain';
import { checkLiteralHost, createGuardedLookup, type EgressPolicyOptions } from '@jumbe/egress';
import type { Agent as HttpsAgent } from 'node:https';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { SocksProxyAgent } from 'socks-proxy-agent';
import { buildConnector, type Dispatcher, ProxyAgent, Socks5ProxyAgent } from 'undici';
import { SessionProxyError } from './session-proxy-error';

/** How one session's traffic to WhatsApp leaves through its proxy. */
export interface SessionProxyAgents {
  /** The proxy as it may be shown and logged (password masked). */
  readonly masked: string;
  readonly url: SessionProxyUrl;
  /**
   * A Node http(s) agent tunnelling through the proxy: Baileys' `agent` (the WebSocket) and
   * `fetchAgent` (media uploads, made with Node's `https`).
   */
  readonly agent: HttpsAgent;
  /** The same for `fetch` (Baileys' downloads: received media, app-state patches, history). */
  readonly dispatcher: Dispatcher;
  close(): Promise<void>;
}

/**
 * Agents that dial the proxy under the egress policy: an IP literal is checked here, a name by a
 * guarded lookup at every connection (so a proxy name that later resolves to a private address is
 * refused then, not only when it was saved). Throws SessionProxyError naming the masked proxy.
 */
export function sessionProxyAgents(raw: string, policy: EgressPolicyOptions): SessionProxyAgents {
  const masked = maskProxyUrl(raw);
  const parsed = parseSessionProxyUrl(raw);
  if (!parsed.ok) throw new SessionProxyError(masked, parsed.reason);
  const url = parsed.proxy;
  const literal = checkLiteralHost(url.host, policy);
  if (literal !== null && !literal.ok) throw new SessionProxyError(masked, `the proxy ${literal.reason}`);
  const lookup = createGuardedLookup(policy);
  const socks = url.protocol === 'socks5' || url.protocol === 'socks5h';
  const agent = socks
    ? new SocksProxyAgent(url.href, { socketOptions: { lookup } })
    : new HttpsProxyAgent(url.href, { lookup });
  const dispatcher = socks
    ? new Socks5ProxyAgent(`socks5://${url.href.slice(url.protocol.length + 3)}`, {
        connect: buildConnector({ lookup }),
      })
    : new ProxyAgent({ uri: url.href, proxyTls: { lookup } });
  return {
    masked,
    url,
    // agent-base's Agent is an http.Agent that upgrades to TLS itself: what Baileys' https calls take.
    agent: agent as unknown as HttpsAgent,
    dispatcher,
    close: async () => {
      agent.destroy();
      await dispatcher.close();
    },
  };
}

/** What a Baileys socket needs to send all its traffic through the proxy. */
export function proxySocketOptions(proxy: SessionProxyAgents): {
  agent: HttpsAgent;
  fetchAgent: HttpsAgent;
  options: RequestInit;
} {
  return {
    // The WebSocket to WhatsApp.
    agent: proxy.agent,
    // Media uploads (Baileys posts them with Node's https and this agent).
    fetchAgent: proxy.agent,
    // Baileys' fetches (app-state patches, history, profile pictures) take an undici dispatcher.
    options: { dispatcher: proxy.dispatcher } as unknown as RequestInit,
  };
}
