import type { SessionState } from '../session-state';

/** What the network reports about a session's link (mirrors the NetworkDriver's events). */
export type LinkChange =
  | { type: 'qr'; qr: string }
  | { type: 'pairing_code'; code: string }
  | { type: 'connecting' }
  | { type: 'connected'; phoneNumber: string }
  | { type: 'disconnected'; reason: string };

export interface LinkFacts {
  state: SessionState;
  phoneNumber: string | null;
  reason: string | null;
}

/** Closes after which the device is no longer linked (its credentials are deleted). */
const UNLINKING_REASONS = new Set(['logged_out', 'number_in_use']);

/**
 * The session state machine: the facts after a link change, or null when the change must not be
 * recorded. A planned `shutdown` (process stop, shard hand-over) is not a state change: the
 * session stays as it was, for the next owner to restore.
 */
export function applyLinkChange(current: LinkFacts, change: LinkChange): LinkFacts | null {
  switch (change.type) {
    case 'qr':
      return { state: 'qr_ready', phoneNumber: null, reason: null };
    case 'pairing_code':
      return { state: 'pairing_code_ready', phoneNumber: null, reason: null };
    case 'connecting':
      return { state: 'connecting', phoneNumber: current.phoneNumber, reason: null };
    case 'connected':
      return { state: 'connected', phoneNumber: change.phoneNumber, reason: null };
    case 'disconnected':
      if (change.reason === 'shutdown') return null;
      // Once unlinked the number is free for another session. Every other close (a dropped
      // connection, 440 connection_replaced, 403, 405 client_outdated…) keeps the credentials,
      // and `POST /session/start` resumes without a scan: the session still is that number.
      return {
        state: 'disconnected',
        phoneNumber: UNLINKING_REASONS.has(change.reason) ? null : current.phoneNumber,
        reason: change.reason,
      };
  }
}
