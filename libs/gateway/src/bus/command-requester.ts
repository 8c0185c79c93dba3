import { ApiError, commandReplySchema } from '@jumbe/contracts';
import { BusNoResponderError, BusTimeoutError, replyWithinHeaders } from '@jumbe/messaging';
import type { CommandBus } from '../ports/command-bus';
import { observeBusCommand, requestIdHeaders } from '@jumbe/telemetry';

/** Who answers a kind of command, named in the errors a client sees when they do not. */
export interface Responder {
  /** e.g. "The worker that owns this session" */
  name: string;
  /** Why nobody may be answering, e.g. "starting, rebalancing or recovering". */
  absence: string;
  /**
   * How long to keep sending the command again while nobody owns its subject, or its owner says
   * it is moving (neither ran it, so sending again is safe). 0: answer 503 at once.
   */
  handOverWaitMs?: number;
}

/** First pause between two sends during a hand-over; it doubles up to HAND_OVER_MAX_PAUSE_MS. */
const HAND_OVER_FIRST_PAUSE_MS = 50;
const HAND_OVER_MAX_PAUSE_MS = 500;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One request/reply over the bus, turned into the contract: the responder's result, its error
 * code, 503 (with Retry-After) when nobody answers the subject or the bus is down, 504 when the
 * responder does not answer in time. While a shard changes hands the command is sent again for
 * up to `handOverWaitMs`, and never past `timeoutMs` in all. `requestId` (the API request's
 * X-Request-Id) travels with the command as a header, for the responder's logs and records.
 */
export async function requestCommand(
  bus: CommandBus,
  subject: string,
  command: object,
  timeoutMs: number,
  responder: Responder,
  requestId?: string,
): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  const handOverUntil = Date.now() + Math.min(responder.handOverWaitMs ?? 0, timeoutMs);
  for (let pauseMs = HAND_OVER_FIRST_PAUSE_MS; ; pauseMs = Math.min(pauseMs * 2, HAND_OVER_MAX_PAUSE_MS)) {
    try {
      return await requestOnce(
        bus,
        subject,
        command,
        Math.max(1, deadline - Date.now()),
        responder,
        requestId,
      );
    } catch (error) {
      if (!(error instanceof HandOverError) || Date.now() + pauseMs >= handOverUntil) {
        throw error instanceof HandOverError ? error.apiError : error;
      }
    }
    await pause(pauseMs);
  }
}

/** Nobody ran the command because its subject is between owners: safe to send again. */
class HandOverError extends Error {
  constructor(readonly apiError: ApiError) {
    super(apiError.message);
  }
}

async function requestOnce(
  bus: CommandBus,
  subject: string,
  command: object,
  timeoutMs: number,
  responder: Responder,
  requestId: string | undefined,
): Promise<unknown> {
  let raw: unknown;
  const observed = observeBusCommand(String((command as { type?: unknown }).type ?? 'unknown'));
  try {
    // How long this wait lasts goes with the command: the worker lets no send leave after it.
    const headers = { ...requestIdHeaders(requestId), ...replyWithinHeaders(timeoutMs) };
    raw = await bus.request(subject, command, { timeoutMs, headers });
  } catch (error) {
    observed(
      error instanceof BusTimeoutError
        ? 'timeout'
        : error instanceof BusNoResponderError
          ? 'no_owner'
          : 'bus_unavailable',
    );
    if (error instanceof BusTimeoutError) {
      throw new ApiError(
        'timeout',
        `${responder.name} did not answer in time. The outcome is unknown; check before retrying.`,
      );
    }
    if (error instanceof BusNoResponderError) {
      throw new HandOverError(
        new ApiError(
          'unavailable',
          `${responder.name} is not available right now (${responder.absence}). Retry shortly.`,
          undefined,
          { 'Retry-After': '2' },
        ),
      );
    }
    throw new ApiError('unavailable', 'The message bus is unavailable. Retry shortly.', undefined, {
      'Retry-After': '2',
    });
  }
  const reply = commandReplySchema.safeParse(raw);
  observed(reply.success ? (reply.data.ok ? 'ok' : reply.data.error.code) : 'bad_reply');
  if (!reply.success)
    throw new ApiError(
      'unavailable',
      `${responder.name} answered in a format this gateway does not understand.`,
    );
  if (!reply.data.ok) {
    const { code, message, moving } = reply.data.error;
    const headers: Record<string, string> =
      code === 'unavailable' || code === 'session_restoring' || code === 'media_busy'
        ? { 'Retry-After': '1' }
        : {};
    const apiError = new ApiError(code, message, undefined, headers);
    throw moving ? new HandOverError(apiError) : apiError;
  }
  return reply.data.result;
}
