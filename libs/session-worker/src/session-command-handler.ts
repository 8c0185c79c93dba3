import {
  ApiError,
  type CommandReply,
  replyError,
  replyMoving,
  replyOk,
  type SessionCommand,
  sessionCommandSchema,
} from '@jumbe/contracts';
import { shardOf } from '@jumbe/domain';
import { type BusMessage, replyDeadlineOf } from '@jumbe/messaging';
import { loggerForMessage } from '@jumbe/telemetry';
import type { Logger } from 'pino';
import type { SessionHost } from './session-host';
import { ShardMovingError } from './shard-moving-error';

/**
 * Kept from the gateway's wait for the reply's way back (the bus, a busy event loop): a send not
 * out by the gateway's deadline less this is refused, and the gateway still hears so.
 */
export const REPLY_MARGIN_MS = 2_000;

/**
 * The worker's side of the command path: validates a command from the bus, checks it belongs to
 * the shard it arrived on, runs it, and answers with a reply envelope (never a thrown error, so
 * the gateway can tell a user error from a broken worker).
 */
export class SessionCommandHandler {
  constructor(
    private readonly host: SessionHost,
    private readonly logger: Logger,
  ) {}

  /** `message` carries the sending request's id (see @jumbe/telemetry), put on the command's log lines. */
  async handle(shard: number, payload: unknown, message?: BusMessage): Promise<CommandReply> {
    const replyBy = replyDeadlineOf(message, REPLY_MARGIN_MS);
    const parsed = sessionCommandSchema.safeParse(payload);
    if (!parsed.success) {
      return replyError(
        'validation_error',
        `Malformed command for this worker version: ${parsed.error.message}`,
      );
    }
    const command = parsed.data;
    if (shardOf(command.accountId, command.sessionId) !== shard || !this.host.ownsShard(shard)) {
      return replyMoving('The session is moving to another worker. Retry in a moment.');
    }
    const reply = await this.run(command, message, replyBy);
    // The request id's child logger only when a line is written: building one per command was
    // ~1% of the all-in-one's CPU per send, for a debug line that is off by default.
    if (this.logger.isLevelEnabled('debug')) {
      const outcome = reply.ok ? 'ok' : reply.error.code;
      // The error's own message too (it names no content): which path a failure took, in a trace.
      const why = reply.ok ? {} : { reason: reply.error.message.slice(0, 300) };
      loggerForMessage(this.logger, message).debug(
        { type: command.type, sessionId: command.sessionId, outcome, ...why },
        'command handled',
      );
    }
    return reply;
  }

  private async run(
    command: SessionCommand,
    message: BusMessage | undefined,
    replyBy: number | undefined,
  ): Promise<CommandReply> {
    try {
      return replyOk(await this.host.execute(command, { replyBy }));
    } catch (error) {
      if (error instanceof ShardMovingError) return replyMoving(error.message);
      if (error instanceof ApiError) return replyError(error.code, error.message);
      loggerForMessage(this.logger, message).error(
        { err: error, type: command.type, sessionId: command.sessionId },
        'command failed',
      );
      return replyError('unavailable', 'The worker could not complete the command. Retry shortly.');
    }
  }
}
