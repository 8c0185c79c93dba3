/**
 * The session is not waiting for a login: a sandbox scan without a pending QR or pairing code, or
 * a pairing code asked of a session that is already linked. Answered as 409 `session_not_ready`.
 */
export class NotReadyError extends Error {
  override readonly name = 'NotReadyError';
  readonly code = 'session_not_ready';
}
