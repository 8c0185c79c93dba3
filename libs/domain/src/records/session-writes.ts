import type { SessionState } from '../session-state';
import type { SessionRecord } from './session-record';

/** Names one session of one account. */
export interface SessionRef {
  accountId: string;
  sessionId: string;
}

export interface SessionStatePatch {
  state: SessionState;
  phoneNumber: string | null;
  reason: string | null;
}

/** How a fenced write ended: written, refused because a newer owner wrote, or the number is taken. */
export type FencedWriteResult = 'saved' | 'fenced' | 'number_in_use';

export type StartClaim =
  | { outcome: 'started'; session: SessionRecord }
  | { outcome: 'limit_reached'; active: number }
  | { outcome: 'fenced' };
