import { ApiError } from '@jumbe/contracts';
import type { JumbeConfig } from '@jumbe/config';
import { maskProxyUrl, parseSessionProxyUrl, SessionProxyVault } from '@jumbe/domain';
import { checkHost } from '@jumbe/egress';
import { Inject, Injectable } from '@nestjs/common';
import { orUnavailable } from '../http/dependency-failure';
import { CONFIG } from '../gateway.tokens';
import { SessionProxyStore, type StoredSessionProxy } from '../ports/session-proxy-store';
import { SessionCommandClient } from './session-command.client';

/** A session's proxy as the API shows it. */
export interface SessionProxyView {
  sessionId: string;
  proxy: string | null;
  updatedAt: string | null;
}

/** A change's answer: the proxy as stored, and what became of the session's connection. */
export interface SessionProxyChange {
  message: string;
  data: SessionProxyView;
}

/**
 * Sessions' own proxies (CONTRACT §11, docs/session-proxy.md): checked like any outbound URL (a
 * proxy on a private network only where the operator allows private networks), sealed with the
 * session they belong to, only ever shown masked. A change reconnects a linked session at once
 * (its worker reads the proxy when it opens a connection); the sandbox dials nothing, so there
 * it only takes effect in what is shown.
 */
@Injectable()
export class SessionProxySettings {
  private readonly allowPrivateNetworks: boolean;
  private readonly dials: boolean;

  constructor(
    private readonly proxies: SessionProxyStore,
    private readonly vault: SessionProxyVault,
    private readonly commands: SessionCommandClient,
    @Inject(CONFIG) config: JumbeConfig,
  ) {
    this.allowPrivateNetworks = config.allowPrivateNetworks;
    this.dials = config.network !== 'sandbox';
  }

  async read(accountId: string, sessionId: string): Promise<SessionProxyView> {
    const stored = await orUnavailable('database', () => this.proxies.find(accountId, sessionId));
    return view(sessionId, stored);
  }

  async set(
    accountId: string,
    sessionId: string,
    url: string,
    requestId?: string,
  ): Promise<SessionProxyChange> {
    const existing = await orUnavailable('database', () => this.proxies.find(accountId, sessionId));
    // A form filled from GET sends the masked form back: saving it would replace the password with ****.
    if (existing !== null && url === existing.maskedUrl) {
      return { message: 'Proxy unchanged.', data: view(sessionId, existing) };
    }
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
    return this.apply('Proxy saved', accountId, sessionId, view(sessionId, stored), requestId);
  }

  async clear(accountId: string, sessionId: string, requestId?: string): Promise<SessionProxyChange> {
    const removed = await orUnavailable('database', () => this.proxies.delete(accountId, sessionId));
    const data = view(sessionId, null);
    if (!removed) return { message: 'The session has no proxy.', data };
    return this.apply('Proxy removed', accountId, sessionId, data, requestId);
  }

  /**
   * Reconnects the session if it is linked and running, so the change applies now. A session
   * that cannot reconnect (its new proxy is down) is answered as the start of one would be
   * (502 `network_error` naming the proxy): the proxy stays saved.
   */
  private async apply(
    done: string,
    accountId: string,
    sessionId: string,
    data: SessionProxyView,
    requestId: string | undefined,
  ): Promise<SessionProxyChange> {
    const later = `${done}. It applies from the session's next start.`;
    if (!this.dials)
      return { message: `${done}. The sandbox network dials nothing: it is only shown.`, data };
    const session = await this.commands
      .send({ type: 'session.reconnect', accountId, sessionId }, requestId)
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.code === 'network_error') {
          throw new ApiError(
            'network_error',
            `${done}, but session "${sessionId}" could not reconnect: ${error.message}`,
          );
        }
        // No worker could reconnect it now (one of an older release, or none answering): the
        // proxy is saved and its next connection uses it.
        if (error instanceof ApiError) return null;
        throw error;
      });
    if (session === null) return { message: later, data };
    return session.connected || session.state === 'connecting'
      ? {
          message: `${done}. The session reconnected ${data.proxy === null ? 'directly' : 'through it'}.`,
          data,
        }
      : { message: later, data };
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
