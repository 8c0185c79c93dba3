import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';

/** The states a session moves through once started (CONTRACT §4), as `session.status` reports them. */
export const REPORTED_SESSION_STATES = [
  'qr_ready',
  'pairing_code_ready',
  'connecting',
  'connected',
  'disconnected',
] as const;

/**
 * `session.status` v1: a session's state changed (opt-in). Carries what `GET /sessions/{id}`
 * shows, never a QR value or pairing code: those stay behind the authenticated routes.
 */
export const sessionStatusEventSchema = z.object({
  event: z.literal('session.status'),
  ...eventEnvelopeFields,
  session: z.object({
    state: z.enum(REPORTED_SESSION_STATES),
    /** Digits only, while the session is linked to a number. */
    phoneNumber: z.string().nullable(),
    /** Why the session is `disconnected` (`logged_out`, `qr_timeout`, …); null in every other state. */
    reason: z.string().nullable(),
  }),
});

export type SessionStatusEventV1 = z.output<typeof sessionStatusEventSchema>;

/** The facts of a session as the worker records them (libs/domain's LinkFacts). */
interface SessionFacts {
  state: string;
  phoneNumber: string | null;
  reason: string | null;
}

/**
 * The `session.status` body for a recorded state change made at `at`, or null for a state the
 * event does not report (`starting`, before the network said anything).
 */
export function sessionStatusEvent(
  accountId: string,
  sessionId: string,
  facts: SessionFacts,
  at: Date,
): SessionStatusEventV1 | null {
  const state = REPORTED_SESSION_STATES.find((reported) => reported === facts.state);
  if (state === undefined) return null;
  return {
    event: 'session.status',
    timestamp: at.toISOString(),
    customerId: accountId,
    sessionId,
    session: {
      state,
      phoneNumber: facts.phoneNumber,
      reason: state === 'disconnected' ? facts.reason : null,
    },
  };
}
