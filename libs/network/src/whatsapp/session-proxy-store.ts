import type { SessionRef } from '../session-ref';

/** Where a session's proxy is kept (SessionProxyRepository of @jumbe/persistence): sealed, never in clear. */
export interface SessionProxyStore {
  /** The session's proxy URL as SessionProxyVault sealed it, or null when it has none. */
  sealedProxyOf(ref: SessionRef): Promise<string | null>;
}
