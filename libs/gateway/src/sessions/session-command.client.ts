import {
  ApiError,
  COMMAND_RESULT_SCHEMAS,
  type CommandResult,
  commandVersion,
  nestedMessage,
  SESSION_COMMAND_VERSION,
  UNREADABLE_COMMAND,
  type SessionCommand,
} from '@jumbe/contracts';
import { shardOf, shardSubject } from '@jumbe/domain';
import type { JumbeConfig } from '@jumbe/config';
import { Inject, Injectable } from '@nestjs/common';
import { requestCommand } from '../bus/command-requester';
import { BUS, CONFIG } from '../gateway.tokens';
import type { CommandBus } from '../ports/command-bus';

export type Unversioned<C> = C extends unknown ? Omit<C, 'v'> : never;

const WORKER = {
  name: 'The worker that owns this session',
  absence: 'starting, rebalancing or recovering',
  // Long enough to cover a SIGKILLed worker's lease expiry (6 s) plus a restore, mostly.
  handOverWaitMs: 8_000,
};

/** Sends a session command to the worker that owns the session's shard; answers with its result. */
@Injectable()
export class SessionCommandClient {
  constructor(
    @Inject(BUS) private readonly bus: CommandBus,
    @Inject(CONFIG) private readonly config: JumbeConfig,
  ) {}

  /**
   * `requestId`: the X-Request-Id of the API request that sends it (see requestCommand);
   * `timeoutMs`: a longer wait than JUMBE_COMMAND_TIMEOUT_MS, for commands that take long.
   */
  async send<C extends Unversioned<SessionCommand>>(
    command: C,
    requestId?: string,
    options: { timeoutMs?: number } = {},
  ): Promise<CommandResult<C['type']>> {
    const subject = shardSubject(shardOf(command.accountId, command.sessionId));
    const request = (versioned: object) =>
      requestCommand(
        this.bus,
        subject,
        versioned,
        options.timeoutMs ?? this.config.commandTimeoutMs,
        WORKER,
        requestId,
      );
    let raw: unknown;
    try {
      raw = await request({ v: commandVersion(command.type), ...command });
    } catch (error) {
      const sent: Unversioned<SessionCommand> = command;
      if (sent.type !== 'message.send' || !unreadable(error)) throw error;
      // A worker of the previous release, during a rollout: it reads message.send v1 only.
      raw = await request({ ...sent, v: SESSION_COMMAND_VERSION, message: nestedMessage(sent.message) });
    }
    const result = COMMAND_RESULT_SCHEMAS[command.type].safeParse(raw);
    if (!result.success)
      throw new ApiError('unavailable', 'A worker answered with a result this gateway does not understand.');
    return result.data as CommandResult<C['type']>;
  }
}

/** The worker could not read the command at all (it predates its version): nothing was run. */
function unreadable(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.code === 'validation_error' &&
    error.message.startsWith(UNREADABLE_COMMAND)
  );
}
