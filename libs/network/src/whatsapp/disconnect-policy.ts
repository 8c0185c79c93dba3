import type { DisconnectReason } from '../disconnect-reason';

/** Baileys' DisconnectReason codes (its enum, restated so this module stays free of the library). */
export const WA_STATUS = {
  connectionClosed: 428,
  connectionLost: 408,
  timedOut: 408,
  connectionReplaced: 440,
  loggedOut: 401,
  badSession: 500,
  restartRequired: 515,
  multideviceMismatch: 411,
  forbidden: 403,
  unavailableService: 503,
  /** Not in Baileys' enum; seen from WhatsApp's servers (payment required / not acceptable). */
  paymentRequired: 402,
  clientOutdated: 405,
  notAcceptable: 406,
} as const;

/**
 * Closes in which WhatsApp refused the connection for now: an outdated client (405, cured by
 * refetching the version), a server-side failure (500; Baileys also reports every stream error it
 * cannot classify as 500), 402, 406. A WhatsApp incident produces them by the thousand for
 * minutes, so they are retried with a longer backoff (reconnect-policy.ts) and never end a session
 * unless the operator set `maxRefusals`; then it ends with one of these reasons, credentials kept.
 */
const REFUSAL_REASONS = new Map<number, DisconnectReason>([
  [WA_STATUS.paymentRequired, 'network_refused'],
  [WA_STATUS.clientOutdated, 'client_outdated'],
  [WA_STATUS.notAcceptable, 'network_refused'],
  [WA_STATUS.badSession, 'bad_session'],
]);

/** Whether this close counts towards the bounded refusals (see REFUSAL_REASONS). */
export function isRefusal(statusCode: number | undefined): boolean {
  return statusCode !== undefined && REFUSAL_REASONS.has(statusCode);
}

/** Baileys' message when every QR ref the server gave has been shown and none was scanned. */
export const QR_REFS_ENDED = 'QR refs attempts ended';

export interface CloseFacts {
  /** `lastDisconnect.error.output.statusCode` (a Boom), or undefined for a plain socket error. */
  statusCode: number | undefined;
  message: string;
  /** True once the device is linked: stored credentials from a scan or a code. */
  linked: boolean;
  /** A QR or pairing code was offered on this login attempt. */
  loginOffered: boolean;
  /** The login attempt has used up its time (only meaningful while not linked). */
  loginExpired: boolean;
  /** Refusal closes (see isRefusal) in a row, this one included, since the last open. */
  refusals: number;
  /** How many refusals in a row end the session. */
  maxRefusals: number;
}

export type CloseDecision =
  /** Open a new socket at once with the same credentials (the server asked for a restart). */
  | { action: 'reconnect_now' }
  /** Open a new socket after the backoff delay (`refused`: WhatsApp refused it for now, back off longer). */
  | { action: 'reconnect_later'; refused: boolean }
  /** Give up: one final `disconnected` with this reason; clear the credentials if asked. */
  | { action: 'end'; reason: DisconnectReason; clearCredentials: boolean };

/**
 * What to do when a socket closed by itself (a planned close or logout never asks). The standard
 * Baileys reconnect logic, made explicit per DisconnectReason:
 * - restartRequired (after a pairing, or asked by the server): reconnect at once;
 * - loggedOut: the phone unlinked the device, credentials are void;
 * - connectionReplaced / forbidden / multidevice mismatch: final, never an automatic fight for the
 *   connection, credentials kept (a new start resumes from them);
 * - 402 / 405 / 406 / 500 (and unknown stream errors, which Baileys reports as 500), 503: refused
 *   for now, retried with the longer refusal backoff (405 after refreshing the client version),
 *   forever by default; `maxRefusals` in a row (when set) end with a reason of their own;
 * - before linking, a timeout after a QR was offered is the QR expiring (`qr_timeout`);
 * - anything else (connection lost, timed out, closed, service unavailable, a network error) is
 *   transient: a linked session retries with backoff forever, a login retries until its time is up.
 */
export function decideAfterClose(facts: CloseFacts): CloseDecision {
  const { statusCode } = facts;
  if (statusCode === WA_STATUS.restartRequired) return { action: 'reconnect_now' };
  if (statusCode === WA_STATUS.loggedOut) return end('logged_out', true);
  if (statusCode === WA_STATUS.connectionReplaced) return end('connection_replaced', false);
  if (statusCode === WA_STATUS.forbidden) return end('forbidden', false);
  if (statusCode === WA_STATUS.multideviceMismatch) return end('multidevice_mismatch', false);
  const refused = statusCode === undefined ? undefined : REFUSAL_REASONS.get(statusCode);
  if (refused && facts.refusals >= facts.maxRefusals) return end(refused, false);
  if (!facts.linked) {
    const qrExpired =
      facts.loginOffered && (statusCode === WA_STATUS.timedOut || facts.message.includes(QR_REFS_ENDED));
    // An unscanned login leaves nothing worth keeping: the next start shows a fresh QR.
    if (qrExpired) return end('qr_timeout', true);
    if (facts.loginExpired) return end(facts.loginOffered ? 'qr_timeout' : 'network_error', true);
  }
  return {
    action: 'reconnect_later',
    refused: refused !== undefined || statusCode === WA_STATUS.unavailableService,
  };
}

function end(reason: DisconnectReason, clearCredentials: boolean): CloseDecision {
  return { action: 'end', reason, clearCredentials };
}
