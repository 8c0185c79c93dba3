import { REPLY_KINDS } from '@jumbe/contracts';
import { changeRefusal, isValidPhoneNumber, replyAddress, type InboundNetworkMessage } from '@jumbe/domain';
import type { DisconnectReason } from '../disconnect-reason';
import type { LinkEvent } from '../link-event';
import type { MessageStatusReport } from '../message-status-report';
import { NetworkSendError } from '../network-send-error';
import type { ChatPresence, NetworkSession, NumberLookup } from '../network-session';
import type { ContactProfile, IncomingCall, OwnProfile, ProfileUpdate } from '../profile';
import type { PollVote } from '../poll-vote';
import { SandboxProfile } from './sandbox-profile';
import type { NetworkGroups } from '../network-groups';
import { SandboxGroups } from './sandbox-groups';
import { NotReadyError } from '../not-ready-error';
import { NumberInUseError } from '../number-in-use-error';
import type {
  OutboundEdit,
  OutboundInteractive,
  OutboundMedia,
  OutboundMessage,
  OutboundRevoke,
  OutboundText,
  Quoting,
} from '../outbound-message';
import type { SentKey } from '../sent-key';
import type { SessionEvents } from '../session-events';
import { InboundRedelivery } from '../inbound-redelivery';
import type { SessionRef } from '../session-ref';
import { newOutboundMessageId, newPairingCode, newQrValue } from './sandbox-ids';
import type { SandboxCredentials } from './sandbox-credentials';
import type { SandboxNetworkSettings } from './sandbox-network-options';
import {
  isSentMessage,
  SANDBOX_OUTBOX_CAPACITY,
  type SandboxOutboxEntry,
  type SandboxPendingLogin,
  type SandboxReceivedEntry,
  type SandboxStore,
} from './sandbox-store';

/**
 * Where one connection is in its life. `ended` is final: a connection that ended emitted its one
 * `disconnected` event and ignores the network from then on; reconnecting means a new `open`.
 */
type ConnectionPhase = 'awaiting_login' | 'connecting' | 'connected' | 'ended';

/**
 * One session's connection to the simulated network, living in the worker that opened it. The
 * network's side of the state (link, outbox, undelivered messages) is in the SandboxStore, so a
 * connection opened by another worker later picks up where this one left off.
 *
 * Over our ~400 lines: it answers the whole NetworkSession (login, every kind of send, chats,
 * profiles, calls, groups) for a network simulated in a few lines per method; the WhatsApp driver's
 * counterpart is cut by concern because each of its concerns is hundreds of lines of Baileys.
 */
export class SandboxSession implements NetworkSession {
  private phase: ConnectionPhase;
  /** Which login the phone is currently offered (so a late first QR cannot replace a pairing code). */
  private offeredLogin: SandboxPendingLogin['kind'] | null = null;
  private loginTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;

  private readonly redelivery: InboundRedelivery;
  /** The linked number while connected (the groups' own member). */
  private ownNumber: string | null = null;
  /** The number's profile, blocked contacts and declined calls (see SandboxProfile). */
  readonly profile: SandboxProfile;

  constructor(
    readonly ref: SessionRef,
    private readonly events: SessionEvents,
    private readonly store: SandboxStore,
    private readonly settings: SandboxNetworkSettings,
    /** Where the device keeps its link; null when links live in the store only. */
    private readonly credentials: SandboxCredentials | null,
    /** Tells the driver the connection ended, so it stops routing control calls to it. */
    private readonly onEnded: (session: SandboxSession) => void,
  ) {
    this.phase = 'connecting';
    this.profile = new SandboxProfile(ref.sessionId);
    this.redelivery = new InboundRedelivery(() => this.deliverRound(), settings.redeliveryIntervalMs);
  }

  /** Fresh login: any earlier link of this session is void, the phone is offered a QR. */
  async beginLogin(): Promise<void> {
    this.phase = 'awaiting_login';
    await this.store.unlink(this.ref);
    const qr = newQrValue();
    await this.store.setPendingLogin(this.ref, { kind: 'qr', qr }, this.settings.qrTimeoutMs);
    this.offeredLogin = 'qr';
    this.restartLoginTimer();
    // Events start once `open` has returned the session to its caller.
    setImmediate(() => {
      if (this.phase === 'awaiting_login' && this.offeredLogin === 'qr') this.emit({ type: 'qr', qr });
    });
  }

  /** Reconnect from stored credentials, as a device does after a restart. */
  beginReconnect(): void {
    this.phase = 'connecting';
    setImmediate(() => {
      if (this.phase !== 'connecting') return;
      this.emit({ type: 'connecting' });
      void this.connect();
    });
  }

  async requestPairingCode(phoneNumber: string): Promise<string> {
    if (!isValidPhoneNumber(phoneNumber)) throw new RangeError('phoneNumber must be 7 to 15 digits');
    if (this.phase !== 'awaiting_login') throw new NotReadyError('the session is not waiting for a login');
    const code = newPairingCode();
    // Before the store write: the first QR must not go out while the code is being stored.
    this.offeredLogin = 'pairing_code';
    await this.store.setPendingLogin(
      this.ref,
      { kind: 'pairing_code', code, phoneNumber },
      this.settings.qrTimeoutMs,
    );
    if (this.phase !== 'awaiting_login') throw new NotReadyError('the session is not waiting for a login');
    this.restartLoginTimer();
    this.emit({ type: 'pairing_code', code });
    return code;
  }

  async send(message: OutboundMessage): Promise<SentKey> {
    if ('quotedMessageId' in message && message.quotedMessageId !== undefined) {
      await this.requireQuotable(message);
    }
    switch (message.kind) {
      case 'text':
        return this.sendText(message);
      case 'media':
        return this.sendMedia(message);
      case 'interactive':
        return this.sendInteractive(message);
      case 'revoke':
      case 'edit':
        return this.changeSent(message);
      case 'status': {
        // A status has no `to`: recorded as sent to status@broadcast, its contacts as given.
        const { kind, ...content } = message;
        return this.record('status@broadcast', kind, withoutUndefined(content));
      }
      default: {
        // Locations, contacts, reactions and polls are recorded as sent, fields as given.
        const { to, kind, ...content } = message;
        return this.record(to, kind, withoutUndefined(content));
      }
    }
  }

  /**
   * Like the WhatsApp driver: a reply quotes a message of its own chat that this session sent
   * (still in its outbox) or received (in the last week); anything else is `message_not_found`.
   */
  private async requireQuotable(message: Quoting & { to: string }): Promise<void> {
    if (this.phase !== 'connected')
      throw new NetworkSendError('session_not_connected', 'the session is not connected');
    const id = message.quotedMessageId;
    const [sent, received] = await Promise.all([
      this.store.outbox(this.ref, SANDBOX_OUTBOX_CAPACITY),
      this.store.received(this.ref),
    ]);
    const known =
      sent.some((entry) => entry.id === id && entry.to === message.to && REPLY_KINDS.has(entry.type)) ||
      received.some((entry) => entry.id === id && entry.chats.includes(message.to));
    if (!known) {
      throw new NetworkSendError(
        'message_not_found',
        `This session has no record of message ${id} in this chat to quote (the sandbox keeps what it received for 7 days and its outbox).`,
      );
    }
  }

  /** Like WhatsApp: only this session's own messages to that chat, within the time limits. */
  private async changeSent(message: OutboundRevoke | OutboundEdit): Promise<SentKey> {
    const sent = (await this.store.outbox(this.ref, SANDBOX_OUTBOX_CAPACITY)).find(
      (entry) => entry.id === message.messageId && entry.to === message.to,
    );
    if (!sent) {
      throw new NetworkSendError(
        'message_not_found',
        `This session sent no message ${message.messageId} to ${message.to} that the sandbox remembers.`,
      );
    }
    const refusal = changeRefusal(message.kind, new Date(sent.createdAt), new Date());
    if (refusal) throw new NetworkSendError('message_not_editable', refusal);
    const { to, kind, ...content } = message;
    return this.record(to, kind, content);
  }

  private sendText(message: OutboundText): Promise<SentKey> {
    // The most frequent send: its two fields directly, rather than through withoutUndefined.
    const content: Record<string, unknown> = { text: message.text };
    if (message.quotedMessageId !== undefined) content['quotedMessageId'] = message.quotedMessageId;
    return this.record(message.to, 'text', content);
  }

  private sendMedia(message: OutboundMedia): Promise<SentKey> {
    // The sandbox never fetches media: it records the URL, so `media_fetch_failed` cannot happen here.
    const { to, kind: _kind, ...content } = message;
    return this.record(to, 'media', withoutUndefined(content));
  }

  private sendInteractive(message: OutboundInteractive): Promise<SentKey> {
    const { to, kind: _kind, ...content } = message;
    return this.record(to, 'interactive', withoutUndefined(content));
  }

  async markRead(chat: string, messageIds: string[]): Promise<void> {
    await this.record(chat, 'read', { messageIds });
  }

  async sendPresence(chat: string, state: ChatPresence): Promise<void> {
    await this.record(chat, 'presence', { state });
  }

  /** The sandbox's rule: every valid number is on WhatsApp except those ending in 0000. */
  groups(): NetworkGroups {
    return new SandboxGroups({
      book: this.store.groupBook(),
      ownJid: () => {
        if (this.phase !== 'connected' || this.ownNumber === null)
          throw new NetworkSendError('session_not_connected', 'The session is not connected.');
        return `${this.ownNumber}@s.whatsapp.net`;
      },
      emit: (event) => {
        try {
          this.events.onGroupEvent?.(event);
        } catch (error) {
          this.settings.logger(`sandbox: onGroupEvent of ${this.describe()} threw`, error);
        }
      },
    });
  }

  async lookUp(phoneNumber: string): Promise<NumberLookup> {
    if (this.phase !== 'connected')
      throw new NetworkSendError('session_not_connected', 'The session is not connected.');
    return phoneNumber.endsWith('0000')
      ? { onWhatsApp: false, recipientId: null }
      : { onWhatsApp: true, recipientId: `${phoneNumber}@s.whatsapp.net` };
  }

  async readProfile(): Promise<OwnProfile> {
    this.requireConnected();
    return this.profile.read();
  }

  async updateProfile(update: ProfileUpdate): Promise<void> {
    this.requireConnected();
    this.profile.update(update);
  }

  async contactProfile(jid: string): Promise<ContactProfile> {
    this.requireConnected();
    return this.profile.contact(jid);
  }

  async setBlocked(jid: string, blocked: boolean): Promise<void> {
    this.requireConnected();
    this.profile.setBlocked(jid, blocked);
  }

  async rejectCall(call: IncomingCall): Promise<void> {
    this.requireConnected();
    this.profile.rejected(call);
  }

  /** A contact calls the number (`POST /sandbox/call`): reported like a ringing WhatsApp call. */
  ring(call: IncomingCall): void {
    this.requireConnected();
    this.events.onCall?.(call);
  }

  /** A contact's vote on a poll this session sent (`message.poll_vote`). */
  reportPollVote(vote: PollVote): void {
    this.requireConnected();
    this.events.onPollVote?.(vote);
  }

  private requireConnected(): void {
    if (this.phase !== 'connected')
      throw new NetworkSendError('session_not_connected', 'The session is not connected.');
  }

  async logout(): Promise<void> {
    if (this.phase === 'ended') return;
    await this.store.unlink(this.ref);
    this.end('logged_out');
  }

  async close(): Promise<void> {
    const phase = this.phase;
    if (phase === 'ended') return;
    this.end('shutdown');
    // Credentials stay; only what this connection held goes: a QR nobody can scan any more, or
    // the "online" mark that keeps the number from being linked elsewhere.
    try {
      if (phase === 'awaiting_login') await this.store.clearPendingLogin(this.ref);
      else await this.store.goOffline(this.ref);
    } catch (error) {
      this.settings.logger(`sandbox: could not release session ${this.describe()} on close`, error);
    }
  }

  // ── The phone's and the network's side, reached through SandboxControl ──

  /** A phone scans the QR or enters the pairing code. */
  async linkPhone(phoneNumber: string): Promise<void> {
    if (this.phase !== 'awaiting_login')
      throw new NotReadyError('the session is not waiting for a scan or a code');
    const outcome = await this.store.completeLogin(this.ref, phoneNumber);
    if (outcome === 'not_ready') throw new NotReadyError('the session is not waiting for a scan or a code');
    if (outcome === 'number_in_use') throw new NumberInUseError(phoneNumber);
    await this.stillAwaitingLogin();
    try {
      await this.credentials?.keep(phoneNumber);
    } catch (error) {
      // A link the device cannot present again must not stay on the network either.
      await this.store.unlink(this.ref);
      throw error;
    }
    await this.stillAwaitingLogin();
    this.clearLoginTimer();
    this.offeredLogin = null;
    this.phase = 'connected';
    this.emit({ type: 'connected', phoneNumber });
    void this.redelivery.kick();
  }

  /**
   * After a step of the link: if the login lapsed or the connection closed meanwhile, nobody holds
   * credentials for this link, so the network must not keep it either.
   */
  private async stillAwaitingLogin(): Promise<void> {
    if (this.phase === 'awaiting_login') return;
    await this.store.unlink(this.ref);
    throw new NotReadyError('the session stopped waiting for a login');
  }

  /** A contact's message reaches the network; it is delivered now, or once the session is connected. */
  async receive(message: InboundNetworkMessage): Promise<void> {
    this.requireLinked();
    // Reactions, edits and deletions change a message; they are nothing a reply quotes.
    await this.store.addPendingInbound(
      this.ref,
      message,
      message.change ? undefined : quotableEntry(message),
    );
    void this.redelivery.kick();
  }

  /** The recipient's phone (or the network) reports what happened to a message the session sent. */
  reportStatus(report: MessageStatusReport): void {
    try {
      this.events.onMessageStatus(report);
    } catch (error) {
      this.settings.logger(`sandbox: onMessageStatus of ${this.describe()} threw`, error);
    }
  }

  /** The network drops the connection; the device reconnects by itself shortly after. */
  dropNetwork(): void {
    this.requireLinked();
    this.phase = 'connecting';
    clearTimeout(this.reconnectTimer);
    this.emit({ type: 'connecting' });
    this.reconnectTimer = setTimeout(() => void this.connect(), this.settings.reconnectDelayMs).unref();
  }

  /** The phone unlinks the device (Linked devices → Log out). */
  async unlinkByPhone(): Promise<void> {
    this.requireLinked();
    await this.logout();
  }

  // ── Internals ──

  private async connect(): Promise<void> {
    this.reconnectTimer = undefined;
    if (this.phase !== 'connecting') return;
    let phoneNumber: string | null;
    try {
      phoneNumber = (await this.store.goOnline(this.ref)) ?? (await this.resumeFromCredentials());
    } catch (error) {
      // The network is unreachable: keep trying, as a device does.
      this.settings.logger(`sandbox: reconnecting ${this.describe()} failed; retrying`, error);
      if (this.phase === 'connecting') {
        this.reconnectTimer = setTimeout(() => void this.connect(), this.settings.reconnectDelayMs).unref();
      }
      return;
    }
    if (this.phase !== 'connecting') return;
    // Not linked any more: the phone unlinked the device, or the number was linked to another session.
    if (phoneNumber === null) return this.end('logged_out');
    this.phase = 'connected';
    this.emit({ type: 'connected', phoneNumber });
    void this.redelivery.kick();
  }

  /** The network has no link for the session: the device presents the one it kept, if any. */
  private async resumeFromCredentials(): Promise<string | null> {
    const remembered = await this.credentials?.linkedNumber();
    return remembered ? this.store.resumeLink(this.ref, remembered) : null;
  }

  private async record(
    to: string,
    type: SandboxOutboxEntry['type'],
    content: Record<string, unknown>,
  ): Promise<SentKey> {
    if (this.phase !== 'connected')
      throw new NetworkSendError('session_not_connected', 'the session is not connected');
    const id = newOutboundMessageId();
    try {
      await this.store.appendOutbox(this.ref, { id, to, type, content, createdAt: new Date().toISOString() });
    } catch (error) {
      throw new NetworkSendError(
        'network_error',
        `the sandbox network did not take the message: ${messageOf(error)}`,
      );
    }
    // The network took it: the first status of every sent message, as WhatsApp's server ack.
    // A receipt or a typing indicator is no message: nothing a webhook could match to a send.
    if (isSentMessage({ type }))
      this.reportStatus({ messageId: id, to, status: 'server_ack', at: new Date() });
    return { remoteJid: to, fromMe: true, id };
  }

  /**
   * Hands the network's pending messages to `onInbound`, oldest first, acknowledging each only
   * after it resolved. False when something is still pending and needs a retry.
   */
  private async deliverRound(): Promise<boolean> {
    // Messages for a disconnected device wait at the network; reconnecting delivers them.
    if (this.phase !== 'connected') return true;
    try {
      for (const message of await this.store.pendingInbound(this.ref)) {
        if (this.phase !== 'connected') return true;
        await this.events.onInbound(message);
        await this.store.acknowledgeInbound(this.ref, message.id);
      }
      return true;
    } catch (error) {
      this.settings.logger(`sandbox: inbound delivery to ${this.describe()} failed; retrying`, error);
      return false;
    }
  }

  private restartLoginTimer(): void {
    this.clearLoginTimer();
    this.loginTimer = setTimeout(() => this.loginLapsed(), this.settings.qrTimeoutMs).unref();
  }

  private clearLoginTimer(): void {
    clearTimeout(this.loginTimer);
    this.loginTimer = undefined;
  }

  private loginLapsed(): void {
    if (this.phase !== 'awaiting_login') return;
    this.end('qr_timeout');
    // The store's copy lapses by itself (same TTL); clearing it is only tidiness.
    this.store.clearPendingLogin(this.ref).catch((error: unknown) => {
      this.settings.logger(`sandbox: could not clear the login of ${this.describe()}`, error);
    });
  }

  /** Ends this connection for good: timers stop, the driver forgets it, one final `disconnected`. */
  end(reason: DisconnectReason): void {
    if (this.phase === 'ended') return;
    this.abandon();
    this.emit({ type: 'disconnected', reason });
  }

  /** Ends a connection that never got going (its `open` failed), without any event. */
  abandon(): void {
    this.phase = 'ended';
    this.clearLoginTimer();
    clearTimeout(this.reconnectTimer);
    this.redelivery.stop();
    this.reconnectTimer = undefined;
    this.onEnded(this);
  }

  private requireLinked(): void {
    if (this.phase !== 'connected' && this.phase !== 'connecting') {
      throw new NetworkSendError('session_not_connected', 'the session is not connected');
    }
  }

  private emit(event: LinkEvent): void {
    if (event.type === 'connected') this.ownNumber = event.phoneNumber;
    // A failing listener must not break the connection's own bookkeeping (it runs in timers).
    try {
      this.events.onLink(event);
    } catch (error) {
      this.settings.logger(`sandbox: onLink(${event.type}) of ${this.describe()} threw`, error);
    }
  }

  private describe(): string {
    return `${this.ref.accountId}/${this.ref.sessionId}`;
  }
}

/** A received message as a reply may quote it: in its chat, or in the chat the event says to reply to. */
function quotableEntry(message: InboundNetworkMessage): SandboxReceivedEntry {
  const replyTo = replyAddress(message);
  const chats = replyTo && replyTo !== message.chat ? [message.chat, replyTo] : [message.chat];
  return { id: message.id, chats, createdAt: new Date().toISOString() };
}

function withoutUndefined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
