import type { BusHeaders, BusMessage } from './message-bus';

/**
 * The header a request carries how long its requester waits for the reply in (milliseconds from
 * sending): a handler whose work has effects outside (a WhatsApp send) must not let them happen
 * after the requester gave up and answered "outcome unknown" (504). A duration, not a time of
 * day: the two hosts' clocks need not agree.
 */
export const REPLY_WITHIN_HEADER = 'Jumbe-Reply-Within-Ms';

/** The header that tells the handler the requester waits `timeoutMs`. */
export function replyWithinHeaders(timeoutMs: number): BusHeaders {
  return { [REPLY_WITHIN_HEADER]: String(Math.max(0, Math.floor(timeoutMs))) };
}

/**
 * By when (ms since the epoch, on this host's clock) a handler's effects must have happened for
 * its reply to still be awaited: the request's arrival plus the requester's wait, less `marginMs`
 * for the reply's way back. Undefined when the request says nothing (no deadline).
 */
export function replyDeadlineOf(
  message: BusMessage | undefined,
  marginMs: number,
  receivedAt = Date.now(),
): number | undefined {
  const raw = message?.headers[REPLY_WITHIN_HEADER];
  if (raw === undefined || !/^\d{1,10}$/.test(raw)) return undefined;
  return receivedAt + Math.max(0, Number(raw) - marginMs);
}
