import type { CredentialKey } from './credential-store';
import type { SessionRef } from '../session-ref';

/** What opening a session reads of its store before it connects. */
export interface StoredSessionStart {
  /** The session's proxy URL as SessionProxyVault sealed it, or null when it has none. */
  sealedProxy: string | null;
  /** The sealed `creds` item (PostgresAuthState's), or null when none is stored. */
  creds: Buffer | null;
  /** The ids of the stored items but `exceptKinds`' (no values), or null when more than `limit`. */
  storedKeys: CredentialKey[] | null;
}

/**
 * Reads all a session's open needs in one round trip (SessionStartRepository of
 * @jumbe/persistence). A restore opens every session of a worker at once: its proxy, its creds
 * and its key index as three statements were three of a restored session's ~11 transactions.
 */
export interface SessionStartStore {
  startOf(
    ref: SessionRef,
    creds: CredentialKey,
    exceptKinds: readonly string[],
    limit: number,
  ): Promise<StoredSessionStart>;
}
