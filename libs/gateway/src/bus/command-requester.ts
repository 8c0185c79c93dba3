import { ApiError, commandReplySchema } from '@jumbe/contracts';
import { BusNoResponderError, BusTimeoutError, type MessageBus } from '@jumbe/messaging';
import { observeBusCommand } from '@jumbe/telemetry';

/** Who answers a kind of command, named in the errors a client sees when they do not. */
export interface Responder {
  /** e.g. "The worker that owns this session" */
  name: string;
  /** Why nobody may be answering, e.g. "starting, rebalancing or recovering". */
  absence: string;
}

/**
 * One request/reply over the bus, turned into the contract: the responder's result, its error
 * code, 503 (with Retry-After) when nobody answers the subject or the bus is down, 504 when the
 * responder does not answer in time.
 */
export async function requestCommand(
  bus: MessageBus,
  subject: string,
  command: object,
  timeoutMs: number,
  responder: Responder,
): Promise<unknown> {
  let raw: unknown;
  const observed = observeBusCommand(String((command as { type?: unknown }).type ?? 'unknown'));
  try {
    raw = await bus.request(subject, command, { timeoutMs });
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
    const message =
      error instanceof BusNoResponderError
        ? `${responder.name} is not available right now (${responder.absence}). Retry shortly.`
        : 'The message bus is unavailable. Retry shortly.';
    throw new ApiError('unavailable', message, undefined, { 'Retry-After': '2' });
  }
  const reply = commandReplySchema.safeParse(raw);
  observed(reply.success ? (reply.data.ok ? 'ok' : reply.data.error.code) : 'bad_reply');
  if (!reply.success)
    throw new ApiError(
      'unavailable',
      `${responder.name} answered in a format this gateway does not understand.`,
    );
  if (!reply.data.ok) {
    const headers: Record<string, string> =
      reply.data.error.code === 'unavailable' ? { 'Retry-After': '1' } : {};
    throw new ApiError(reply.data.error.code, reply.data.error.message, undefined, headers);
  }
  return reply.data.result;
}
