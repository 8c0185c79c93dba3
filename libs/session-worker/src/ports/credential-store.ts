import type { CredentialWriteResult, SessionRef } from '@jumbe/domain';

/** The network credentials of each session (the driver reads and writes them; the worker voids them). */
export abstract class CredentialStore {
  /** Forgets the session's credentials, fenced like every write of a shard's owner. */
  abstract clear(ref: SessionRef, token: number): Promise<CredentialWriteResult>;
}
