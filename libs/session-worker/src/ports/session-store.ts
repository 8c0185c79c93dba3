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
  /**
   * Takes a shard's active sessions over in one step: raises each one's owner token to `token`
   * (fencing the previous owner before anything of the session is read) and returns them in the
   * order to restore them. Sessions a newer owner holds are left out.
   */
  abstract takeOverShard(shard: number, token: number): Promise<SessionRecord[]>;
  /** Creates or restarts the session unless the plan's session cap is reached. */
  abstract claimStart(
    ref: SessionRef,
    shard: number,
    token: number,
    maxSessions: number,
  ): Promise<StartClaim>;
  abstract saveState(ref: SessionRef, token: number, patch: SessionStatePatch): Promise<FencedWriteResult>;
  abstract delete(ref: SessionRef, token: number): Promise<boolean>;
}
