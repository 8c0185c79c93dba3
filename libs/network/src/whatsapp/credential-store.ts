import type { SessionRef } from '../session-ref';

/** One stored item of a session's credentials; `value: null` deletes it. */
export interface CredentialItemChange {
  kind: string;
  keyId: string;
  value: Buffer | null;
}

/**
 * Where the driver keeps sessions' credentials: PostgreSQL's `network_credentials` through
 * `NetworkCredentialStore` of @jumbe/persistence, which has this shape. Writes carry the shard's
 * fencing token and are refused (`fenced`) once a newer owner holds the session.
 */
export interface CredentialStore {
  read(ref: SessionRef, kind: string, keyIds: string[]): Promise<Map<string, Buffer>>;
  write(ref: SessionRef, token: number, changes: CredentialItemChange[]): Promise<'saved' | 'fenced'>;
  clear(ref: SessionRef, token: number): Promise<'saved' | 'fenced'>;
}
