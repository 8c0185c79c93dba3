import type { NetworkGroups } from '../network-groups';
import { NetworkSendError } from '../network-send-error';
import type { ChatPresence, NumberLookup } from '../network-session';
import { NotReadyError } from '../not-ready-error';
import type { ContactProfile, IncomingCall, OwnProfile, ProfileUpdate } from '../profile';
import * as profiles from './profile-actions';
import { WhatsAppGroups } from './whatsapp-groups';
import type { WhatsAppSessionContext } from './whatsapp-session-context';
import type { WhatsAppSocket } from './whatsapp-socket';
import { withTimeout } from './with-timeout';

type ChatActionsContext = Pick<WhatsAppSessionContext, 'settings' | 'auth' | 'memory'>;

/**
 * What a connected session does besides sending messages: read receipts, presence, number
 * look-ups, profiles, blocking, calls and groups; each bounded like a send.
 */
export class SessionChatActions {
  constructor(
    private readonly context: ChatActionsContext,
    /** The socket of the connected session; `session_not_connected` when there is none. */
    private readonly connectedSocket: () => WhatsAppSocket,
  ) {}

  async markRead(chat: string, messageIds: string[]): Promise<void> {
    const keys = messageIds.map((id) => ({ remoteJid: chat, id, fromMe: false }));
    await this.chatAction(() => this.connectedSocket().readMessages(keys));
  }

  async sendPresence(chat: string, state: ChatPresence): Promise<void> {
    const presence = state === 'typing' ? 'composing' : state;
    await this.chatAction(() => this.connectedSocket().sendPresenceUpdate(presence, chat));
  }

  async lookUp(phoneNumber: string): Promise<NumberLookup> {
    const found = await this.chatAction(() =>
      this.connectedSocket().onWhatsApp(`${phoneNumber}@s.whatsapp.net`),
    );
    // Baileys lists only the numbers that are on WhatsApp.
    const hit = found?.find((entry) => entry.exists);
    return hit ? { onWhatsApp: true, recipientId: hit.jid } : { onWhatsApp: false, recipientId: null };
  }

  readProfile(): Promise<OwnProfile> {
    return this.chatAction(() => profiles.readOwnProfile(this.profileSocket(), this.profileContext()));
  }

  async updateProfile(update: ProfileUpdate): Promise<void> {
    const socket = this.profileSocket();
    await this.chatAction(() => profiles.updateOwnProfile(socket, this.profileContext(), update));
  }

  contactProfile(jid: string): Promise<ContactProfile> {
    return this.chatAction(() => profiles.readContactProfile(this.profileSocket(), jid));
  }

  async setBlocked(jid: string, blocked: boolean): Promise<void> {
    await this.chatAction(() => profiles.setBlocked(this.profileSocket(), jid, blocked));
  }

  async rejectCall(call: IncomingCall): Promise<void> {
    await this.chatAction(() => profiles.rejectCall(this.profileSocket(), call));
  }

  groups(): NetworkGroups {
    return new WhatsAppGroups({
      socket: () => this.connectedSocket(),
      cache: this.context.memory.groups,
      bounded: (action) => this.chatAction(action),
    });
  }

  private profileSocket(): profiles.ProfileSocket {
    return profiles.profileSocket(this.connectedSocket());
  }

  private profileContext(): profiles.ProfileContext {
    const { settings, auth } = this.context;
    return {
      me: () => auth.state.creds.me,
      saveCreds: () => auth.saveCreds(),
      fetchSettings: {
        allowPrivateNetworks: settings.allowPrivateNetworks,
        maxBytes: settings.mediaMaxBytes,
        timeoutMs: settings.mediaTimeoutMs,
        resolver: settings.mediaResolver,
      },
    };
  }

  /** A chat action (read receipts, presence, look-ups), bounded like a send; failures are network errors. */
  private async chatAction<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(action(), this.context.settings.sendTimeoutMs);
    } catch (error) {
      if (error instanceof NetworkSendError || error instanceof NotReadyError) throw error;
      throw new NetworkSendError('network_error', `The network did not answer: ${(error as Error).message}`);
    }
  }
}
