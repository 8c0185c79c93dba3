import type { DisconnectReason } from '../disconnect-reason';
import type { NetworkGroups } from '../network-groups';
import type { ChatPresence, NetworkSession, NumberLookup, SendOptions } from '../network-session';
import { withSendDeadline } from '../send-deadline';
import type { OutboundMessage } from '../outbound-message';
import type { ContactProfile, IncomingCall, OwnProfile, ProfileUpdate } from '../profile';
import type { SentKey } from '../sent-key';
import type { SessionRef } from '../session-ref';
import type { MediaReupload } from './inbound-media-reupload';
import { SessionChatActions } from './session-chat-actions';
import { SessionConnection, stopSocket } from './session-connection';
import { SessionEnding } from './session-ending';
import { SessionLinkEvents } from './session-link-events';
import { SessionLogin } from './session-login';
import { SessionReceiver } from './session-receiver';
import { SessionSender } from './session-sender';
import { SessionStatuses } from './session-statuses';
import { statusOfAck } from './status-mapper';
import { UnackedResender } from './unacked-resender';
import type { WhatsAppSessionContext } from './whatsapp-session-context';
import type { WhatsAppSocket } from './whatsapp-socket';

export type { WhatsAppSessionContext } from './whatsapp-session-context';

/**
 * One session's connection to WhatsApp through Baileys. It outlives Baileys sockets: every
 * reconnect is a new socket over the same credentials, caches and inbound queue, and events of an
 * old socket are ignored once it was replaced. This class only composes the session's parts:
 * its sockets (SessionConnection), login (SessionLogin), sending (SessionSender; UnackedResender
 * for what WhatsApp never acknowledged), other chat actions (SessionChatActions), statuses of
 * sent messages (SessionStatuses), what it receives (SessionReceiver) and how it ends
 * (SessionEnding).
 */
export class WhatsAppSession implements NetworkSession {
  private readonly link: SessionLinkEvents;
  private readonly login: SessionLogin;
  private readonly connection: SessionConnection;
  private readonly unacked: UnackedResender;
  private readonly sender: SessionSender;
  private readonly chat: SessionChatActions;
  private readonly statuses: SessionStatuses;
  private readonly receiver: SessionReceiver;
  private readonly ending: SessionEnding;

  constructor(private readonly context: WhatsAppSessionContext) {
    this.link = new SessionLinkEvents(context.events, context.logger);
    this.login = new SessionLogin(context, this.link, {
      awaitingLogin: () => this.connection.phaseNow() === 'awaiting_login',
      currentSocket: () => this.connection.currentSocket(),
      lapse: (reason) => {
        stopSocket(this.connection.detachSocket());
        void this.ending.finish(reason, { clearCredentials: true });
      },
    });
    this.connection = new SessionConnection(context, this.login, this.link, {
      listenTo: (socket) => this.listenTo(socket),
      lettingGo: () => this.receiver.letGo(),
      opened: (socket) => {
        this.receiver.deliverStored();
        void this.unacked.resendOn(socket);
      },
      deliverStored: () => this.receiver.deliverStored(),
      end: (reason, options) => void this.ending.finish(reason, options),
      hasFinished: () => this.ending.hasFinished,
    });
    this.unacked = new UnackedResender(context, (socket) => this.connection.isConnectedOn(socket));
    this.sender = new SessionSender(context, this.connection, this.unacked);
    this.chat = new SessionChatActions(context, () => this.connection.connectedSocket());
    this.statuses = new SessionStatuses(
      context,
      () => this.sender.inFlight(),
      (socket) => this.connection.isCurrent(socket),
    );
    this.receiver = new SessionReceiver(context, {
      isCurrent: (socket) => this.connection.isCurrent(socket),
      hasEnded: () => this.connection.hasEnded(),
      hasFinished: () => this.ending.hasFinished,
    });
    this.ending = new SessionEnding(
      context,
      {
        connection: this.connection,
        login: this.login,
        receiver: this.receiver,
        unacked: this.unacked,
        link: this.link,
      },
      () => context.onEnded(this),
    );
  }

  get ref(): SessionRef {
    return this.context.ref;
  }

  /** Fresh login: a socket that will offer a QR. */
  beginLogin(): void {
    this.connection.beginLogin();
  }

  /** Reconnect from stored credentials, as a linked device does after a restart. */
  beginReconnect(): void {
    this.connection.beginReconnect();
  }

  /** The stored credentials are gone (or were never linked): nothing to reconnect with. */
  failImmediately(reason: DisconnectReason): void {
    setImmediate(() => void this.ending.finish(reason, { clearCredentials: false }));
  }

  requestPairingCode(phoneNumber: string): Promise<string> {
    return this.login.requestPairingCode(phoneNumber);
  }

  send(message: OutboundMessage, options?: SendOptions): Promise<SentKey> {
    // The deadline rides in an async context because Baileys writes the frames deep inside; only
    // this driver needs it, and a process without Baileys should not pay for AsyncLocalStorage's
    // hooks on every promise (the sandbox send path ran 1.46x the CPU with it: BENCHMARKS.md).
    return withSendDeadline(options?.replyBy, () => this.sender.send(message));
  }

  sendLearned(messageId: string): boolean {
    return this.unacked.learned(messageId, this.connection.currentSocket());
  }

  markRead(chat: string, messageIds: string[]): Promise<void> {
    return this.chat.markRead(chat, messageIds);
  }

  sendPresence(chat: string, state: ChatPresence): Promise<void> {
    return this.chat.sendPresence(chat, state);
  }

  lookUp(phoneNumber: string): Promise<NumberLookup> {
    return this.chat.lookUp(phoneNumber);
  }

  readProfile(): Promise<OwnProfile> {
    return this.chat.readProfile();
  }

  updateProfile(update: ProfileUpdate): Promise<void> {
    return this.chat.updateProfile(update);
  }

  contactProfile(jid: string): Promise<ContactProfile> {
    return this.chat.contactProfile(jid);
  }

  setBlocked(jid: string, blocked: boolean): Promise<void> {
    return this.chat.setBlocked(jid, blocked);
  }

  rejectCall(call: IncomingCall): Promise<void> {
    return this.chat.rejectCall(call);
  }

  groups(): NetworkGroups {
    return this.chat.groups();
  }

  /**
   * Asks the account's phone, over this connection, to upload a received media file again (its
   * CDN copy expired: Baileys' updateMediaMessage); null when the session is not connected.
   */
  mediaReupload(): MediaReupload {
    return this.connection.mediaReupload();
  }

  logout(): Promise<void> {
    return this.ending.logout();
  }

  close(): Promise<void> {
    return this.ending.close();
  }

  /** What a new socket receives and reports goes to the parts that take it. */
  private listenTo(socket: WhatsAppSocket): void {
    this.receiver.listenTo(socket);
    this.statuses.listenTo(socket);
    socket.ws?.on('CB:ack,class:message', (node) => {
      // Taken from any socket of this session: the server got the message, whichever carried it.
      if (node.attrs.id) this.unacked.acked(node.attrs.id);
      if (this.connection.isCurrent(socket)) this.statuses.report(statusOfAck(node, new Date()));
    });
  }
}
