import type { SessionRef } from '../session-ref';

/** Names one stored item of a session's credentials. */
export interface CredentialKey {
  kind: string;
  keyId: string;
}

/** One stored item of a session's credentials; `value: null` deletes it. */
export interface CredentialItemChange extends CredentialKey {
  value: Buffer | null;
}

/**
 * Where the driver keeps sessions' credentials: PostgreSQL's `network_credentials` through
 * `NetworkCredentialStore` of @jumbe/persistence, which has this shape. Writes carry the shard's
 * fencing token and are refused (`fenced`) once a newer owner holds the session.
 */
export interface CredentialStore {
  read(ref: SessionRef, kind: string, keyIds: string[]): Promise<Map<string, Buffer>>;
  /**
   * Which items the session has stored, of every kind but `exceptKinds` (no values), or null when
   * there are more than `limit`. Optional: without it every absent key is asked about once.
   */
  storedKeys?(
    ref: SessionRef,
    exceptKinds: readonly string[],
    limit: number,
  ): Promise<CredentialKey[] | null>;
  write(ref: SessionRef, token: number, changes: CredentialItemChange[]): Promise<'saved' | 'fenced'>;
  clear(ref: SessionRef, token: number): Promise<'saved' | 'fenced'>;
}
