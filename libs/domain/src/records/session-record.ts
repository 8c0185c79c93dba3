import type { SessionState } from '../session-state';

/** A stored session: plain data. */
export interface SessionRecord {
  accountId: string;
  sessionId: string;
  shard: number;
  state: SessionState;
  phoneNumber: string | null;
  reason: string | null;
  ownerToken: number;
  updatedAt: Date;
}
