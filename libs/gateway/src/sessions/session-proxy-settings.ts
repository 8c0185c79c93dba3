import { ApiError } from '@jumbe/contracts';
import type { JumbeConfig } from '@jumbe/config';
import { maskProxyUrl, parseSessionProxyUrl, SessionProxyVault } from '@jumbe/domain';
import { checkHost } from '@jumbe/egress';
import { Inject, Injectable } from '@nestjs/common';
import { orUnavailable } from '../auth/dependency-failure';
import { CONFIG } from '../gateway.tokens';
import { SessionProxyStore, type StoredSessionProxy } from '../ports/session-proxy-store';

/** A session's proxy as the API shows it. */
export interface SessionProxyView {
  sessionId: string;
  proxy: string | null;
  updatedAt: string | null;
}

/**
 * Sessions' own proxies (CONTRACT §11, docs/session-proxy.md): checked like any outbound URL (a
 * proxy on a private network only where the operator allows private networks), sealed with the
 * session they belong to, only ever shown masked. The worker reads it when the session next opens.
 */
@Injectable()
export class SessionProxySettings {
  private readonly allowPrivateNetworks: boolean;

  constructor(
    private readonly proxies: SessionProxyStore,
    private readonly vault: SessionProxyVault,
    @Inject(CONFIG) config: JumbeConfig,
  ) {
    this.allowPrivateNetworks = config.allowPrivateNetworks;
  }

  async read(accountId: string, sessionId: string): Promise<SessionProxyView> {
    const stored = await orUnavailable('database', () => this.proxies.find(accountId, sessionId));
    return view(sessionId, stored);
  }

  async set(accountId: string, sessionId: string, url: string): Promise<SessionProxyView> {
    const existing = await orUnavailable('database', () => this.proxies.find(accountId, sessionId));
    // A form filled from GET sends the masked form back: saving it would replace the password with ****.
    if (existing !== null && url === existing.maskedUrl) return view(sessionId, existing);
    const verdict = parseSessionProxyUrl(url);
    if (!verdict.ok) throw invalid(verdict.reason);
    const host = await checkHost(verdict.proxy.host, 'proxy', {
      allowPrivateNetworks: this.allowPrivateNetworks,
    });
    if (!host.ok) throw invalid(host.reason);
    const { href } = verdict.proxy;
    const stored = await orUnavailable('database', () =>
      this.proxies.save(accountId, sessionId, {
        maskedUrl: maskProxyUrl(href),
        urlCiphertext: this.vault.seal({ accountId, sessionId }, href),
      }),
    );
    return view(sessionId, stored);
  }

  async clear(accountId: string, sessionId: string): Promise<SessionProxyView> {
    await orUnavailable('database', () => this.proxies.delete(accountId, sessionId));
    return view(sessionId, null);
  }
}

function view(sessionId: string, stored: StoredSessionProxy | null): SessionProxyView {
  return {
    sessionId,
    proxy: stored?.maskedUrl ?? null,
    updatedAt: stored?.updatedAt.toISOString() ?? null,
  };
}

function invalid(reason: string): ApiError {
  return new ApiError('invalid_proxy_url', `Invalid request body: /url: ${reason}`, [
    { path: '/url', problem: reason },
  ]);
}
