import type { SessionState } from '../session-state';

/** The Session object of the wire contract (CONTRACT §4), `reason` being our extension. */
export interface SessionView {
  sessionId: string;
  phoneNumber: string | null;
  connected: boolean;
  state: SessionState;
  updatedAt: string | null;
  reason: string | null;
}

export interface SessionFacts {
  sessionId: string;
  state: SessionState;
  phoneNumber: string | null;
  reason: string | null;
  updatedAt: Date | null;
}

export function sessionView(facts: SessionFacts): SessionView {
  return {
    sessionId: facts.sessionId,
    phoneNumber: facts.phoneNumber,
    connected: facts.state === 'connected',
    state: facts.state,
    updatedAt: facts.updatedAt ? facts.updatedAt.toISOString() : null,
    reason: facts.reason,
  };
}

/** A session that was never started reads as `disconnected` with no time (CONTRACT §4). */
export function neverStartedSession(sessionId: string): SessionView {
  return sessionView({ sessionId, state: 'disconnected', phoneNumber: null, reason: null, updatedAt: null });
}
