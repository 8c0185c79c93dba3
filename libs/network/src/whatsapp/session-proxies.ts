import { SessionProxyVault } from '@jumbe/domain';
import type { EgressPolicyOptions } from '@jumbe/egress';
import type { SessionRef } from '../session-ref';
import type { SessionProxyAgents } from './proxy-agents';
import { SessionProxyError } from './session-proxy-error';
import { probeSessionProxy } from './session-proxy-probe';
import type { SessionProxyStore } from './session-proxy-store';

export interface SessionProxiesOptions {
  store: SessionProxyStore | undefined;
  secretKey: string;
  policy: EgressPolicyOptions;
  /** WhatsApp's WebSocket URL: the probe opens a tunnel to its host. */
  webSocketUrl: string;
  probeTimeoutMs: number;
}

/** WhatsApp's own WebSocket address (Baileys' default `waWebSocketUrl`). */
export const WHATSAPP_WEB_SOCKET_URL = 'wss://web.whatsapp.com/ws/chat';

/**
 * Each session's own proxy, read afresh from its store whenever the session opens (a changed
 * proxy applies from the next open) and opened from its sealed form only here, in the worker.
 */
export class SessionProxies {
  private readonly vault: SessionProxyVault;

  constructor(private readonly options: SessionProxiesOptions) {
    this.vault = new SessionProxyVault(options.secretKey);
  }

  /**
   * The agents of the session's proxy once a tunnel through it to WhatsApp opened, or null when
   * the session has none. Fails with SessionProxyError naming the masked proxy. `sealed`: the
   * stored proxy when the caller read it already (with the session's other start reads).
   */
  async forConnection(ref: SessionRef, sealed?: string | null): Promise<SessionProxyAgents | null> {
    const proxy = await this.agentsOf(ref, sealed);
    if (proxy === null) return null;
    try {
      await probeSessionProxy(proxy, this.options.webSocketUrl, this.options.probeTimeoutMs);
    } catch (error) {
      await proxy.close();
      throw error;
    }
    return proxy;
  }

  /** The agents of the session's proxy, or null; the caller closes them when done. */
  async agentsOf(ref: SessionRef, read?: string | null): Promise<SessionProxyAgents | null> {
    const sealed = read === undefined ? await this.options.store?.sealedProxyOf(ref) : read;
    if (!sealed) return null;
    let url: string;
    try {
      url = this.vault.open(ref, sealed);
    } catch {
      throw new SessionProxyError(
        '(sealed)',
        'its stored value cannot be opened with this JUMBE_SECRET_KEY; set the proxy again',
      );
    }
    // Loaded with the first proxied session only: the agents are ES modules a sandbox never needs.
    const { sessionProxyAgents } = await import('./proxy-agents');
    return sessionProxyAgents(url, this.options.policy);
  }
}
