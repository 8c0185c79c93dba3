import type { CommandResult, SessionCommand } from '@jumbe/contracts';
import type { CustomerContext } from '../auth/principal';
import type { SessionCommandClient, Unversioned } from './session-command.client';

/** A session command as a route writes it: the caller's account is added from its key. */
export type CustomerCommand =
  Unversioned<SessionCommand> extends infer C ? (C extends unknown ? Omit<C, 'accountId'> : never) : never;

/** What a command route answers: the worker's result, and for a change a sentence saying what it did. */
export type CommandAnswer<T extends CustomerCommand['type']> =
  { data: CommandResult<T> } | { message: string; data: CommandResult<T> };

/**
 * The routes that only validate their input and hand it to the session's worker: sends `command`
 * for the caller's account (carrying its request id) and answers `{ message, data }`, or `{ data }`
 * for a read (`message` omitted).
 */
export async function forwardCommand<C extends CustomerCommand>(
  commands: SessionCommandClient,
  customer: CustomerContext,
  command: C,
  message?: string | ((data: CommandResult<C['type']>) => string),
): Promise<CommandAnswer<C['type']>> {
  // The account put back: a whole command of the same type (TypeScript cannot follow Omit on a generic).
  const sent = {
    ...command,
    accountId: customer.access.accountId,
  } as unknown as Unversioned<SessionCommand> & {
    type: C['type'];
  };
  const data: CommandResult<C['type']> = await commands.send(sent, customer.requestId);
  if (message === undefined) return { data };
  return { message: typeof message === 'string' ? message : message(data), data };
}
