/** A session's proxy as stored: the form that may be shown, and the URL sealed. */
export interface StoredSessionProxy {
  maskedUrl: string;
  urlCiphertext: string;
  updatedAt: Date;
}

/** Sessions' own proxies (docs/session-proxy.md), by account and session id. */
export abstract class SessionProxyStore {
  abstract find(accountId: string, sessionId: string): Promise<StoredSessionProxy | null>;
  abstract save(
    accountId: string,
    sessionId: string,
    proxy: { maskedUrl: string; urlCiphertext: string },
  ): Promise<StoredSessionProxy>;
  /** False when the session had no proxy. */
  abstract delete(accountId: string, sessionId: string): Promise<boolean>;
}
