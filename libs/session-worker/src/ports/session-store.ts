import type {
  FencedWriteResult,
  SessionRecord,
  SessionRef,
  SessionStatePatch,
  StartClaim,
} from '@jumbe/domain';

/**
 * The stored sessions, as the worker reads and writes them. Every write carries the fencing token
 * of the shard lease and lands only if no newer owner wrote (`owner_token <= token`).
 */
export abstract class SessionStore {
  abstract find(ref: SessionRef): Promise<SessionRecord | null>;
  abstract listActiveInShards(shards: number[]): Promise<SessionRecord[]>;
  /** Creates or restarts the session unless the plan's session cap is reached. */
  abstract claimStart(
    ref: SessionRef,
    shard: number,
    token: number,
    maxSessions: number,
  ): Promise<StartClaim>;
  abstract saveState(ref: SessionRef, token: number, patch: SessionStatePatch): Promise<FencedWriteResult>;
  /** Raises the row's owner token to `token`, so an older owner's writes are refused from now on. */
  abstract takeOwnership(ref: SessionRef, token: number): Promise<boolean>;
  abstract delete(ref: SessionRef, token: number): Promise<boolean>;
}
