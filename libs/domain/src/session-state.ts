/** Session states as they appear on the wire (CONTRACT §4). */
export const SESSION_STATES = [
  'starting',
  'qr_ready',
  'pairing_code_ready',
  'connecting',
  'connected',
  'disconnected',
] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** Active sessions count toward the plan's session cap: every state but `disconnected`. */
export function isActiveState(state: SessionState): boolean {
  return state !== 'disconnected';
}
