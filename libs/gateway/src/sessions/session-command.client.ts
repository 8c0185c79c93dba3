import {
  ApiError,
  COMMAND_RESULT_SCHEMAS,
  type CommandResult,
  commandReplySchema,
  SESSION_COMMAND_VERSION,
  type SessionCommand,
} from '@jumbe/contracts';
import { shardOf, shardSubject } from '@jumbe/domain';
import { BusNoResponderError, BusTimeoutError, BusUnavailableError } from '@jumbe/messaging';
import type { Infrastructure } from '@jumbe/platform';
import { Inject, Injectable } from '@nestjs/common';
import { INFRASTRUCTURE } from '../gateway.tokens';

type Unversioned<C> = C extends unknown ? Omit<C, 'v'> : never;

/**
 * Sends a session command to the worker that owns the session's shard and turns the outcome into
 * the contract: the worker's result, its error code, 503 when nobody owns the shard right now,
 * 504 when the owner does not answer in time.
 */
@Injectable()
export class SessionCommandClient {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  async send<C extends Unversioned<SessionCommand>>(command: C): Promise<CommandResult<C['type']>> {
    const subject = shardSubject(shardOf(command.accountId, command.sessionId));
    let raw: unknown;
    try {
      raw = await this.infrastructure.bus.request(
        subject,
        { v: SESSION_COMMAND_VERSION, ...command },
        {
          timeoutMs: this.infrastructure.config.commandTimeoutMs,
        },
      );
    } catch (error) {
      throw busFailure(error);
    }
    const reply = commandReplySchema.safeParse(raw);
    if (!reply.success)
      throw new ApiError('unavailable', 'A worker answered in a format this gateway does not understand.');
    if (!reply.data.ok) {
      const headers: Record<string, string> =
        reply.data.error.code === 'unavailable' ? { 'Retry-After': '1' } : {};
      throw new ApiError(reply.data.error.code, reply.data.error.message, undefined, headers);
    }
    const result = COMMAND_RESULT_SCHEMAS[command.type].safeParse(reply.data.result);
    if (!result.success)
      throw new ApiError('unavailable', 'A worker answered with a result this gateway does not understand.');
    return result.data as CommandResult<C['type']>;
  }
}

function busFailure(error: unknown): ApiError {
  if (error instanceof BusTimeoutError) {
    return new ApiError(
      'timeout',
      'The worker that owns this session did not answer in time. The outcome is unknown; check before retrying.',
    );
  }
  if (error instanceof BusNoResponderError || error instanceof BusUnavailableError) {
    return new ApiError(
      'unavailable',
      'No worker owns this session right now (starting, rebalancing or recovering). Retry shortly.',
      undefined,
      {
        'Retry-After': '2',
      },
    );
  }
  return new ApiError('unavailable', 'The message bus failed. Retry shortly.', undefined, {
    'Retry-After': '2',
  });
}
