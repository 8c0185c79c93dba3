import { ApiError, type CommandResult, type SessionCommand } from '@jumbe/contracts';
import { NetworkSendError, type SessionRef } from '@jumbe/network';
import { runGroupOperation } from './group-commands';
import type { LiveSession } from './live-session';
import type { MediaFetcher } from './media-fetcher';
import type { CallSettingsStore } from './ports/call-settings-store';

type Command<T extends SessionCommand['type']> = Extract<SessionCommand, { type: T }>;

/** The commands carried out on a session's open connection (or its settings), nothing more. */
export type ConnectedSessionCommand = Command<
  | 'chat.read'
  | 'chat.presence'
  | 'contact.check'
  | 'profile.read'
  | 'profile.update'
  | 'contact.profile'
  | 'contact.block'
  | 'calls.settings.read'
  | 'calls.settings.update'
  | 'group'
  | 'media.fetch'
>;

export interface ConnectedSessionDeps {
  /** The session's live connection in this worker, if it has one. */
  liveOf(ref: SessionRef): LiveSession | undefined;
  callSettings?: CallSettingsStore | undefined;
  media: MediaFetcher | null;
}

/**
 * Chat actions, profiles, blocking, calls settings, groups and media of a session: each runs on
 * its open connection and answers 409 `session_not_connected` without one, as a send does. Apart
 * from SessionHost because none of them changes which sessions are open or who owns them.
 */
export class ConnectedSessionCommands {
  constructor(private readonly deps: ConnectedSessionDeps) {}

  async run(command: ConnectedSessionCommand): Promise<CommandResult<SessionCommand['type']>> {
    switch (command.type) {
      case 'chat.read':
        await this.onConnection(command, (network) => network.markRead(command.chat, command.messageIds));
        return { chat: command.chat, messageIds: command.messageIds };
      case 'chat.presence':
        await this.onConnection(command, (network) => network.sendPresence(command.chat, command.state));
        return { chat: command.chat, state: command.state };
      case 'contact.check':
        return {
          phoneNumber: command.phoneNumber,
          ...(await this.onConnection(command, (network) => network.lookUp(command.phoneNumber))),
        };
      case 'profile.read':
        return this.onConnection(command, (network) => network.readProfile());
      case 'profile.update':
        return this.updateProfile(command);
      case 'contact.profile':
        return this.contactProfile(command);
      case 'contact.block':
        await this.onConnection(command, (network) => network.setBlocked(command.contact, command.blocked));
        return { contact: command.contact, blocked: command.blocked };
      case 'calls.settings.read':
        return this.callSettings(command);
      case 'calls.settings.update':
        await this.callSettingsStore().save(command, {
          rejectCalls: command.rejectCalls,
          reply: command.reply,
        });
        return { sessionId: command.sessionId, rejectCalls: command.rejectCalls, reply: command.reply };
      case 'group':
        return this.onConnection(command, (network) =>
          runGroupOperation(network.groups(), command.operation),
        );
      case 'media.fetch':
        if (!this.deps.media) throw new ApiError('unavailable', 'This worker does not serve media files.');
        return this.deps.media.fetch(command, command.messageId);
    }
  }

  private async updateProfile(command: Command<'profile.update'>) {
    const { name, about, pictureUrl, pictureData } = command.change;
    const picture =
      pictureData !== undefined
        ? { data: Buffer.from(pictureData, 'base64') }
        : pictureUrl !== undefined
          ? { url: pictureUrl }
          : undefined;
    await this.onConnection(command, (network) => network.updateProfile({ name, about, picture }));
    const updated = [
      ...(name !== undefined ? ['name' as const] : []),
      ...(about !== undefined ? ['about' as const] : []),
      ...(picture !== undefined ? ['picture' as const] : []),
    ];
    return { updated };
  }

  private async contactProfile(command: Command<'contact.profile'>) {
    const profile = await this.onConnection(command, (network) => network.contactProfile(command.contact));
    return {
      contact: command.contact,
      pictureUrl: profile.pictureUrl,
      about: profile.about,
      aboutSetAt: profile.aboutSetAt?.toISOString() ?? null,
    };
  }

  private async callSettings(ref: SessionRef) {
    const stored = await this.callSettingsStore().find(ref);
    return {
      sessionId: ref.sessionId,
      rejectCalls: stored?.rejectCalls ?? false,
      reply: stored?.reply ?? null,
    };
  }

  private callSettingsStore(): CallSettingsStore {
    const store = this.deps.callSettings;
    if (!store) throw new ApiError('unavailable', 'This worker does not keep calls settings.');
    return store;
  }

  /** Runs a chat action on the session's open connection; not connected is a 409, like a send. */
  async onConnection<T>(ref: SessionRef, action: (network: LiveSession) => Promise<T>): Promise<T> {
    const live = this.deps.liveOf(ref);
    if (!live || live.state !== 'connected') {
      throw new ApiError('session_not_connected', `Session "${ref.sessionId}" is not connected.`);
    }
    try {
      return await action(live);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof NetworkSendError) throw new ApiError(error.code, error.message);
      throw new ApiError('network_error', `The network did not answer: ${(error as Error).message}`);
    }
  }
}
