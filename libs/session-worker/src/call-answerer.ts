import { MESSAGE_SEND_VERSION, type SessionCommand, sessionCommandSchema } from '@jumbe/contracts';
import type { IncomingCall, SessionRef } from '@jumbe/network';
import type { Logger } from 'pino';
import type { CallSettingsStore } from './ports/call-settings-store';
import type { StatusRelay } from './status-relay';

export interface CallAnswererDeps {
  settings: CallSettingsStore;
  statuses: StatusRelay;
  /** Declines the call on the session's connection. */
  reject(ref: SessionRef, call: IncomingCall): Promise<void>;
  /** Runs a command as the bus would (the reply goes through the normal send path). */
  execute(command: SessionCommand): Promise<unknown>;
  logger: Logger;
}

/**
 * What a session does when a call rings: with its calls setting on, declines it and then sends
 * the setting's reply text like any other send; either way `call.received` goes on the event
 * stream (for accounts that subscribed), saying whether the call was declined.
 */
export class CallAnswerer {
  constructor(private readonly deps: CallAnswererDeps) {}

  async answer(ref: SessionRef, call: IncomingCall): Promise<void> {
    const { logger } = this.deps;
    const settings = await this.deps.settings.find(ref).catch((error: unknown) => {
      logger.error({ err: error, ...ref }, 'calls setting unreadable; the call is left ringing');
      return null;
    });
    let rejected = false;
    if (settings?.rejectCalls) {
      try {
        await this.deps.reject(ref, call);
        rejected = true;
      } catch (error) {
        logger.warn({ err: error, ...ref, callId: call.id }, 'the call could not be rejected');
      }
    }
    await this.deps.statuses
      .callReceived(ref, call, rejected)
      .catch((error: unknown) =>
        logger.error({ err: error, ...ref }, 'call.received could not be published'),
      );
    if (rejected && settings?.reply) await this.reply(ref, call, settings.reply);
  }

  private async reply(ref: SessionRef, call: IncomingCall, text: string): Promise<void> {
    try {
      // Parsed like a command off the bus, so it is exactly what a `POST /messages/text` sends.
      const command = sessionCommandSchema.parse({
        v: MESSAGE_SEND_VERSION,
        type: 'message.send',
        accountId: ref.accountId,
        sessionId: ref.sessionId,
        message: { kind: 'text', to: call.callerPhone ?? call.from, text },
      });
      await this.deps.execute(command);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, ...ref, callId: call.id },
        'the reply to a rejected call was not sent',
      );
    }
  }
}
