import { InboundRedelivery } from '../inbound-redelivery';
import {
  changeRefusal,
  contactVcard,
  type InboundNetworkMessage,
  isValidPhoneNumber,
  type MessageChange,
} from '@jumbe/domain';
import {
  type AnyMessageContent,
  Browsers,
  type MiscMessageGenerationOptions,
  type ConnectionState,
  type GroupMetadata,
  generateWAMessageFromContent,
  isJidStatusBroadcast,
  jidDecode,
  proto,
  type UserFacingSocketConfig,
  type WAMessage,
} from '@whiskeysockets/baileys';
import type { Logger } from 'pino';
import type { DisconnectReason } from '../disconnect-reason';
import type { LinkEvent } from '../link-event';
import { NetworkSendError } from '../network-send-error';
import { nothingLeft, sendDeadline, sendDeadlinePassed } from '../send-deadline';
import type { ChatPresence, NetworkSession, NumberLookup } from '../network-session';
import type { NetworkGroups } from '../network-groups';
import { participantsEventOf, updatedEventOf } from './whatsapp-group-events';
import { decryptedVote, pollUpdateOf } from './poll-votes';
import { WhatsAppGroups } from './whatsapp-groups';
import type { ContactProfile, IncomingCall, OwnProfile, ProfileUpdate } from '../profile';
import { incomingCallOf } from './call-offer';
import * as profiles from './profile-actions';
import { NotReadyError } from '../not-ready-error';
import type {
  OutboundContact,
  OutboundInteractive,
  OutboundMedia,
  OutboundMessage,
  OutboundReaction,
  OutboundEdit,
  OutboundRevoke,
  OutboundText,
  Quoting,
  OutboundStatus,
} from '../outbound-message';
import type { SentKey } from '../sent-key';
import type { SessionEvents } from '../session-events';
import type { SessionRef } from '../session-ref';
import { ArrivalOrder } from './arrival-order';
import { guardFramesByDeadline } from './deadline-guard';
import { decideAfterClose, WA_STATUS } from './disconnect-policy';
import { durableEncryptions } from './durable-encryptions';
import { EventBufferDrain } from './event-buffer-drain';
import { resolveSenderPhoneJid, toInboundMessage } from './inbound-mapper';
import { type OwnMessageStatus, statusOfAck, statusOfReceipt, statusOfUpdate } from './status-mapper';
import { buildInteractiveContent, nativeFlowStanzaNodes } from './interactive-mapper';
import { type FetchedMedia, fetchMedia, mediaMessageContent, readUpload } from './media-content';
import { NodeCarryingResends } from './node-carrying-resends';
import { ReconnectPolicy } from './reconnect-policy';
import { undecryptableReason } from './undecryptable';
import { type UnackedSend, UnackedSends } from './unacked-sends';
import { unlinkDevice } from './unlink-device';
import type { PostgresAuthState } from './postgres-auth-state';
import type { InboundInbox } from './inbound-inbox';
import type { InboundMediaArchive } from './inbound-media-archive';
import type { MediaReupload } from './inbound-media-reupload';
import type { QuoteArchive } from './quote-archive';
import type { SentMessageArchive } from './sent-message-archive';
import type { SessionMemory } from './session-memory';
import type { WaVersionSource } from './wa-version-source';
import type { WhatsAppSettings } from './whatsapp-settings';
import { proxySocketOptions, type SessionProxyAgents } from './proxy-agents';
import type { BaileysLogger, WhatsAppSocket, WhatsAppSocketFactory } from './whatsapp-socket';

/**
 * Where the connection is: waiting for a phone to scan or type a code, linked and (re)connecting,
 * connected, or ended for good (one `disconnected` was emitted; a new start is a new `open`).
 */
type Phase = 'awaiting_login' | 'connecting' | 'connected' | 'ended';

export interface WhatsAppSessionContext {
  ref: SessionRef;
  events: SessionEvents;
  settings: WhatsAppSettings;
  socketFactory: WhatsAppSocketFactory;
  auth: PostgresAuthState;
  memory: SessionMemory;
  /** What this session sent, for recipients' retry requests (memory, then PostgreSQL). */
  sent: SentMessageArchive;
  /** What this session received, until the event stream has it (the durable outbox). */
  inbox: InboundInbox;
  /** What replies of this session can quote: messages it received or sent. */
  quotes: QuoteArchive;
  /** How to download received media files later (GET /messages/media); apart from the inbox. */
  media: InboundMediaArchive;
  logger: Logger;
  baileysLogger: BaileysLogger;
  /** Runs `start` when this driver may open its next socket (staggering); returns a cancel. */
  schedule: (start: () => void) => () => void;
  /** The client version each new socket announces (refreshed after a 405). */
  versions: WaVersionSource;
  /** False once the worker lost the session's shard: never reconnect then. */
  stillOwned: () => boolean;
  /** Tells the driver the connection ended, so it forgets it. */
  onEnded: (session: WhatsAppSession) => void;
  /** The session's own proxy: every socket, upload and download of Baileys goes through it. */
  proxy?: SessionProxyAgents | null;
}

/**
 * One session's connection to WhatsApp through Baileys. It outlives Baileys sockets: every
 * reconnect is a new socket over the same credentials, caches and inbound queue, and events of an
 * old socket are ignored once it was replaced.
 */
export class WhatsAppSession implements NetworkSession {
  private phase: Phase = 'connecting';
  private socket: WhatsAppSocket | null = null;
  /** Cancels a scheduled (staggered or backed-off) socket start. */
  private cancelStart: (() => void) | null = null;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private loginTimer: NodeJS.Timeout | undefined;
  /** When the next socket opens after a close (backoff, refusals, restarts in a row). */
  private readonly reconnects: ReconnectPolicy;
  /**
   * Sends handed to Baileys and not yet recorded as ours: WhatsApp's ack (or a fast receipt) can
   * arrive before `relay` has remembered the message id, and must wait for it instead of being
   * taken for a message sent from the phone.
   */
  private readonly unrecordedSends = new Set<Promise<unknown>>();
  /** Sends WhatsApp's server has not acknowledged: they go out again on the next socket. */
  private readonly unacked = new UnackedSends();
  /** Per message id, its statuses still being looked up, chained in arrival order. */
  private readonly reportingStatuses = new Map<string, Promise<void>>();
  /** Which login the phone is currently offered (a QR refresh must not replace a pairing code). */
  private offeredLogin: 'qr' | 'pairing_code' | null = null;
  private loginExpired = false;
  /** The current socket has reached WhatsApp and shown a QR: a pairing code can be asked for. */
  private loginReady = false;
  private loginReadyWaiters: (() => void)[] = [];
  /** The one `disconnected` has been (or is being) emitted. */
  private finished = false;
  /** Received batches being written to the outbox, in arrival order. */
  private receiving: Promise<void> = Promise.resolve();
  /** Once the session is closing: when storing a received message stops being retried. */
  private storeGiveUpAt: number | null = null;

  private readonly redelivery: InboundRedelivery;
  /** Answers retry receipts of interactive messages on the current socket (null: Baileys does). */
  private resends: NodeCarryingResends | null = null;
  /** The stored credentials were deleted (or are being). */
  private credentialsCleared = false;
  /** Woken at the next link event (a logout waiting for a socket to unlink with). */
  private linkWaiters: (() => void)[] = [];
  /** Gets receipted messages out of the current socket's event buffer (EventBufferDrain). */
  private bufferDrain: EventBufferDrain | null = null;
  /** Hands the current socket's received messages on in the order they arrived (ArrivalOrder). */
  private arrivals: ArrivalOrder | null = null;

  constructor(private readonly context: WhatsAppSessionContext) {
    this.redelivery = new InboundRedelivery(() => this.deliverRound(), context.settings.redeliveryIntervalMs);
    this.reconnects = new ReconnectPolicy(context.settings);
  }

  get ref(): SessionRef {
    return this.context.ref;
  }

  /** Fresh login: a socket that will offer a QR. */
  beginLogin(): void {
    this.phase = 'awaiting_login';
    this.restartLoginTimer();
    this.scheduleConnect(0);
  }

  /** Reconnect from stored credentials, as a linked device does after a restart. */
  beginReconnect(): void {
    this.phase = 'connecting';
    // Events start once `open` has returned the session to its caller.
    setImmediate(() => {
      if (this.phase !== 'connecting') return;
      this.emit({ type: 'connecting' });
      this.scheduleConnect(0);
      // What the previous connection (or owner) stored but did not hand over goes first.
      void this.redelivery.kick();
    });
  }

  /** The stored credentials are gone (or were never linked): nothing to reconnect with. */
  failImmediately(reason: DisconnectReason): void {
    setImmediate(() => void this.finish(reason, { clearCredentials: false }));
  }

  async requestPairingCode(phoneNumber: string): Promise<string> {
    if (!isValidPhoneNumber(phoneNumber)) throw new RangeError('phoneNumber must be 7 to 15 digits');
    if (this.phase !== 'awaiting_login') throw new NotReadyError('the session is not waiting for a login');
    // One deadline for the whole request, so the caller (a gateway command) gets an answer in time.
    const deadline = Date.now() + this.context.settings.pairingCodeWaitMs;
    await this.waitForLoginReady(deadline - Date.now());
    const socket = this.socket;
    if (this.phase !== 'awaiting_login' || !socket) {
      throw new NotReadyError('the session stopped waiting for a login');
    }
    // Before the request: a QR refresh arriving meanwhile must not replace the code.
    this.offeredLogin = 'pairing_code';
    let code: string;
    try {
      code = await withTimeout(socket.requestPairingCode(phoneNumber), Math.max(1, deadline - Date.now()));
    } catch (error) {
      this.offeredLogin = 'qr';
      throw new NetworkSendError(
        'network_error',
        `WhatsApp did not issue a pairing code: ${messageOf(error)}`,
      );
    }
    if (this.phase !== 'awaiting_login') throw new NotReadyError('the session stopped waiting for a login');
    this.restartLoginTimer();
    this.emit({ type: 'pairing_code', code });
    return code;
  }

  send(message: OutboundMessage): Promise<SentKey> {
    switch (message.kind) {
      case 'text':
        return this.sendText(message);
      case 'media':
        return this.sendMedia(message);
      case 'interactive':
        return this.sendInteractive(message);
      case 'location':
        return this.sendContent(message, {
          location: {
            degreesLatitude: message.latitude,
            degreesLongitude: message.longitude,
            ...(message.name ? { name: message.name } : {}),
            ...(message.address ? { address: message.address } : {}),
          },
        });
      case 'contact':
        return this.sendContent(message, contactCards(message));
      case 'reaction':
        return this.sendReaction(message);
      case 'revoke':
        return this.changeSent(message, 'revoke', { delete: this.ownKey(message) });
      case 'edit':
        return this.changeSent(message, 'edit', { text: message.text, edit: this.ownKey(message) });
      case 'poll':
        // Baileys adds the poll's secret (messageContextInfo.messageSecret) that votes are
        // encrypted with; the sent-message archive keeps the creation message to decrypt them.
        return this.sendContent(message, {
          poll: {
            name: message.question,
            values: message.options,
            selectableCount: message.multipleChoice ? 0 : 1,
          },
        });
      case 'status':
        return this.sendStatus(message);
    }
  }

  /** A status goes to status@broadcast, encrypted for each listed contact's devices (a sender key). */
  private async sendStatus(message: OutboundStatus): Promise<SentKey> {
    this.connectedSocket();
    const options: MiscMessageGenerationOptions = {
      statusJidList: message.contacts.map((phone) => `${phone}@s.whatsapp.net`),
      broadcast: true,
      ...(message.backgroundColor ? { backgroundColor: message.backgroundColor } : {}),
      ...(message.font !== undefined ? { font: message.font } : {}),
    };
    const audience = { statusJidList: options.statusJidList ?? [] };
    if (message.type === 'text') {
      const text = message.text ?? '';
      return this.relay(STATUS_JID, (socket) => socket.sendMessage(STATUS_JID, { text }, options), audience);
    }
    const { type, url = '', caption } = message;
    return this.withMedia(url, (media) => {
      const content = mediaMessageContent({ kind: 'media', to: STATUS_JID, type, url, caption }, media);
      return this.relay(STATUS_JID, (socket) => socket.sendMessage(STATUS_JID, content, options), audience);
    });
  }

  private ownKey(message: OutboundRevoke | OutboundEdit): proto.IMessageKey {
    return { remoteJid: message.to, id: message.messageId, fromMe: true };
  }

  /** Edits and deletes only what this session sent, within WhatsApp's time limits. */
  private async changeSent(
    message: OutboundRevoke | OutboundEdit,
    change: MessageChange,
    content: AnyMessageContent,
  ): Promise<SentKey> {
    this.connectedSocket();
    const sentAt = await this.context.sent.sentAt(message.messageId);
    if (sentAt === null)
      throw new NetworkSendError(
        'message_not_found',
        `This session has no record of message ${message.messageId} (sent messages are kept for 24 hours).`,
      );
    const refusal = changeRefusal(change, sentAt, new Date());
    if (refusal) throw new NetworkSendError('message_not_editable', refusal);
    return this.relay(message.to, (socket) => socket.sendMessage(message.to, content));
  }

  /** A reaction names the message by its key: ours if this session sent it, else the contact's. */
  private async sendReaction(message: OutboundReaction): Promise<SentKey> {
    const fromMe = (await this.context.sent.find(message.messageId)) !== undefined;
    return this.relay(message.to, (socket) =>
      socket.sendMessage(message.to, {
        react: { text: message.emoji, key: { remoteJid: message.to, id: message.messageId, fromMe } },
      }),
    );
  }

  private sendText(message: OutboundText): Promise<SentKey> {
    return this.sendContent(message, { text: message.text, linkPreview: null });
  }

  /** One message Baileys builds from `content`, quoting what the message replies to. */
  private async sendContent(message: Quoting & { to: string }, content: AnyMessageContent): Promise<SentKey> {
    const reply = await this.replyOptions(message);
    return this.relay(message.to, (socket) => socket.sendMessage(message.to, content, reply));
  }

  /**
   * Baileys' options for a reply: the quoted message, found among what this session received or
   * sent in the same chat; `message_not_found` (sending nothing) when it has no record of it there.
   */
  private async replyOptions(message: Quoting & { to: string }): Promise<MiscMessageGenerationOptions> {
    const id = message.quotedMessageId;
    if (id === undefined) return {};
    this.connectedSocket();
    const quoted = await this.context.quotes.find(id, message.to);
    if (!quoted) {
      throw new NetworkSendError(
        'message_not_found',
        `This session has no record of message ${id} in this chat to quote (received messages are kept for 7 days, sent ones for 24 hours).`,
      );
    }
    return { quoted };
  }

  private async sendMedia(message: OutboundMedia): Promise<SentKey> {
    this.connectedSocket();
    const reply = await this.replyOptions(message);
    const send = (media: FetchedMedia) => {
      const content = mediaMessageContent(message, media);
      return this.relay(message.to, (socket) => socket.sendMessage(message.to, content, reply));
    };
    if (message.upload) return this.withUpload(message.upload, send);
    return this.withMedia(message.url ?? '', send);
  }

  /** Reads an uploaded file within the worker's budget, and releases it once `use` is done. */
  private async withUpload(
    upload: { name: string; size: number },
    use: (media: FetchedMedia) => Promise<SentKey>,
  ): Promise<SentKey> {
    const { settings } = this.context;
    const media = await readUpload(upload, settings.uploads, {
      budget: { bytes: settings.mediaBudget, waitMs: settings.mediaBudgetWaitMs },
    });
    try {
      return await use(media);
    } finally {
      media.release();
    }
  }

  /** Fetches a media URL within the worker's limits and budget, and releases it once `use` is done. */
  private async withMedia(url: string, use: (media: FetchedMedia) => Promise<SentKey>): Promise<SentKey> {
    const { settings } = this.context;
    const media = await fetchMedia(url, {
      allowPrivateNetworks: settings.allowPrivateNetworks,
      maxBytes: settings.mediaMaxBytes,
      timeoutMs: settings.mediaTimeoutMs,
      resolver: settings.mediaResolver,
      budget: { bytes: settings.mediaBudget, waitMs: settings.mediaBudgetWaitMs },
    });
    try {
      return await use(media);
    } finally {
      // The file's bytes count against the worker's media budget until Baileys is done with them.
      media.release();
    }
  }

  private async sendInteractive(message: OutboundInteractive): Promise<SentKey> {
    const { quoted } = await this.replyOptions(message);
    return this.relay(message.to, async (socket) => {
      const userJid = socket.user?.id ?? this.context.auth.state.creds.me?.id ?? '';
      const built = generateWAMessageFromContent(message.to, buildInteractiveContent(message), {
        userJid,
        ...(quoted ? { quoted } : {}),
      });
      await socket.relayMessage(message.to, built.message ?? {}, {
        messageId: built.key.id ?? undefined,
        additionalNodes: nativeFlowStanzaNodes(message.to, Date.now()),
      });
      if (built.key.id && this.socket === socket) this.resends?.forgetInBaileys(built.key.id);
      return built;
    });
  }

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

  groups(): NetworkGroups {
    return new WhatsAppGroups({
      socket: () => this.connectedSocket(),
      cache: this.context.memory.groups,
      bounded: (action) => this.chatAction(action),
    });
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

  async logout(): Promise<void> {
    if (this.phase === 'ended') return;
    // A linked session between sockets must still unlink on the phone, or the phone keeps listing
    // a device whose credentials are gone: connect now with them, for a bounded time.
    if (this.phase === 'connecting') await this.connectToUnlink();
    if (this.hasEnded()) {
      // Ended meanwhile for another reason (403, 440, the shard lost): a logout still deletes them.
      if (!this.credentialsCleared) await this.discardCredentials();
      return;
    }
    const socket = this.detachSocket();
    const wasLinked = this.phase === 'connected' || this.phase === 'connecting';
    this.phase = 'ended';
    if (socket && wasLinked) {
      // Unlink on the phone too (Linked devices); the session ends whether or not it got through.
      try {
        const deviceJid = socket.user?.id ?? this.context.auth.state.creds.me?.id;
        await withTimeout(unlinkDevice(socket, deviceJid), 10_000);
      } catch (error) {
        this.context.logger.warn(
          { err: error },
          'logout could not reach WhatsApp; clearing the credentials anyway',
        );
      }
    }
    stopSocket(socket);
    await this.finish('logged_out', { clearCredentials: true });
  }

  /**
   * Opens (or waits for) a socket with the stored credentials so logout can send its unlink,
   * skipping the backoff and the launch queue; gives up after `logoutUnlinkWaitMs` (logout then
   * clears the credentials anyway). WhatsApp may end the session meanwhile (401: already unlinked).
   */
  private async connectToUnlink(): Promise<void> {
    const deadline = Date.now() + this.context.settings.logoutUnlinkWaitMs;
    if (!this.socket) {
      this.clearScheduledStart();
      void this.connect();
    }
    while (this.phase === 'connecting' && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.linkWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    if (this.phase === 'ended') return;
    const abandonedPairing = this.phase === 'awaiting_login' && this.offeredLogin === 'pairing_code';
    this.phase = 'ended';
    this.clearScheduledStart();
    const socket = this.socket;
    if (socket) {
      // Messages Baileys still buffers were receipted to WhatsApp: emit them while this socket's
      // listeners still take them, then end the socket with its listeners attached (its `close`
      // drains again whatever was being handled meanwhile), and store every batch for the next owner.
      this.bufferDrain?.drain();
      await withTimeout(Promise.resolve(socket.end(undefined)), SOCKET_END_WAIT_MS).catch(() => undefined);
    }
    stopSocket(this.detachSocket());
    await this.receiving;
    // The next owner reconnects with what is stored: let every credential write land first.
    await this.context.auth.flush();
    await this.finish('shutdown', { clearCredentials: abandonedPairing });
  }

  // ── Sockets ──

  /** Read through a method so the compiler does not narrow the phase across an await. */
  private hasEnded(): boolean {
    return this.phase === 'ended';
  }

  private scheduleConnect(delayMs: number): void {
    this.clearScheduledStart();
    const start = () => {
      this.cancelStart = this.context.schedule(() => {
        this.cancelStart = null;
        void this.connect();
      });
    };
    if (delayMs <= 0) start();
    else this.reconnectTimer = setTimeout(start, delayMs).unref();
  }

  private async connect(): Promise<void> {
    if (this.phase === 'ended') return;
    const version = await this.context.versions.current();
    if (this.hasEnded()) return;
    if (!this.context.stillOwned()) {
      // Another worker owns the session now: reconnecting would kick it off (440) there.
      this.context.logger.warn('shard lease lost; not reconnecting here');
      void this.finish('shutdown', { clearCredentials: false });
      return;
    }
    this.loginReady = false;
    let socket: WhatsAppSocket;
    try {
      socket = this.context.socketFactory({ ...this.socketConfig(), ...(version ? { version } : {}) });
    } catch (error) {
      this.context.logger.warn({ err: error }, 'could not create a WhatsApp socket; retrying');
      this.onSocketClosed(undefined, messageOf(error));
      return;
    }
    this.socket = socket;
    guardFramesByDeadline(socket);
    this.bufferDrain?.stop();
    this.bufferDrain = EventBufferDrain.attach(socket, this.context.settings.eventBufferFlushMs);
    this.resends?.stop();
    this.resends = NodeCarryingResends.attach(
      socket,
      this.context.sent,
      this.context.memory.retryCounters,
      this.context.logger,
    );
    socket.ev.on('connection.update', (update) => this.onConnectionUpdate(socket, update));
    socket.ev.on('creds.update', () => {
      if (this.finished) return;
      this.context.auth
        .saveCreds()
        .catch((error: unknown) =>
          this.context.logger.error({ err: error }, 'could not store WhatsApp credentials'),
        );
    });
    this.keepGroupMetadata(socket);
    const arrivals = new ArrivalOrder((messages) => void this.receive(socket, messages), ARRIVAL_WAIT_MS);
    this.arrivals = arrivals;
    // Registered after Baileys' own listener: noted before Baileys has emitted anything for it.
    socket.ws?.on('CB:message', (node) => {
      // A stanza already handed on (WhatsApp sends again what a dropped socket never receipted)
      // may never become a message again: not waited for.
      const id = node.attrs.id;
      if (isJidStatusBroadcast(node.attrs.from ?? '') || (id && this.context.memory.delivered.has(id)))
        return;
      arrivals.arrived(id, !!node.attrs.offline);
    });
    socket.ws?.on('CB:ib,,offline', () => arrivals.backlogArrived());
    socket.ev.on('messages.upsert', ({ messages, type }) => {
      if (this.socket !== socket || (type !== 'notify' && type !== 'append')) return;
      arrivals.emitted(messages);
    });
    socket.ev.on('messages.update', (updates) => {
      if (this.socket !== socket) return;
      for (const update of updates) this.reportStatus(statusOfUpdate(update, new Date()));
    });
    socket.ev.on('message-receipt.update', (receipts) => {
      if (this.socket !== socket) return;
      for (const receipt of receipts) this.reportStatus(statusOfReceipt(receipt, new Date()));
    });
    socket.ev.on('call', (calls) => {
      if (this.socket !== socket) return;
      for (const call of calls) {
        const offer = incomingCallOf(call);
        if (offer) this.context.events.onCall?.(offer);
      }
    });
    socket.ws?.on('CB:ack,class:message', (node) => {
      // Taken from any socket of this session: the server got the message, whichever carried it.
      if (node.attrs.id) this.unacked.acked(node.attrs.id);
      if (this.socket === socket) this.reportStatus(statusOfAck(node, new Date()));
    });
  }

  /**
   * Fills the group-metadata cache Baileys reads before a group send: from the groups the server
   * announces, and on a miss from one lookup of ours that later sends reuse;
   * any change to a group drops its entry, so the next send reads it anew.
   */
  private keepGroupMetadata(socket: WhatsAppSocket): void {
    const { groups } = this.context.memory;
    socket.ev.on('groups.upsert', (metadata) => {
      for (const group of metadata) groups.set(group.id, group);
    });
    socket.ev.on('groups.update', (updates) => {
      for (const update of updates) if (update.id) groups.del(update.id);
      if (this.socket !== socket) return;
      for (const update of updates) this.reportGroupEvent(updatedEventOf(update));
    });
    socket.ev.on('group-participants.update', (update) => {
      groups.del(update.id);
      if (this.socket === socket) this.reportGroupEvent(participantsEventOf(update));
    });
  }

  private reportGroupEvent(event: ReturnType<typeof participantsEventOf>): void {
    if (event) this.context.events.onGroupEvent?.(event);
  }

  /**
   * Asks the account's phone, over this connection, to upload a received media file again (its
   * CDN copy expired: Baileys' updateMediaMessage); null when the session is not connected.
   */
  mediaReupload(): MediaReupload {
    const socket = this.phase === 'connected' ? this.socket : null;
    if (!socket?.updateMediaMessage) return null;
    return (message) => socket.updateMediaMessage?.(message) ?? Promise.reject(new Error('socket closed'));
  }

  private async groupMetadata(jid: string): Promise<GroupMetadata | undefined> {
    const { groups } = this.context.memory;
    const cached = groups.get<GroupMetadata>(jid);
    if (cached || !this.socket) return cached;
    try {
      const fetched = await this.socket.groupMetadata(jid);
      groups.set(jid, fetched);
      return fetched;
    } catch {
      return undefined; // Baileys asks the server itself and reports its own error.
    }
  }

  private socketConfig(): UserFacingSocketConfig {
    const { memory, auth } = this.context;
    return {
      auth: auth.state,
      // A send's Signal state is stored before its stanza leaves (Baileys commits it after).
      makeSignalRepository: durableEncryptions(auth.state.keys),
      logger: this.context.baileysLogger,
      browser: Browsers.ubuntu('Chrome'),
      ...(this.context.settings.webSocketUrl ? { waWebSocketUrl: this.context.settings.webSocketUrl } : {}),
      ...(this.context.settings.keepAliveIntervalMs
        ? { keepAliveIntervalMs: this.context.settings.keepAliveIntervalMs }
        : {}),
      ...(this.context.proxy ? proxySocketOptions(this.context.proxy) : {}),
      // A server, not a phone: no full history, not shown online, no link previews. The small
      // initial syncs stay on: they carry the LID ↔ phone-number mappings Baileys needs.
      syncFullHistory: false,
      shouldSyncHistoryMessage: ({ syncType }) => !SKIPPED_HISTORY.has(syncType ?? -1),
      markOnlineOnConnect: false,
      emitOwnEvents: false,
      generateHighQualityLinkPreview: false,
      // Status updates are dropped anyway: never spend a decryption (and a retry) on them.
      shouldIgnoreJid: (jid) => isJidStatusBroadcast(jid),
      // Without it, every group send asks the server for the group's participants first.
      cachedGroupMetadata: (jid) => this.groupMetadata(jid),
      // Serves a recipient's retry request for a message this session sent.
      // An interactive message is resent by NodeCarryingResends (with its <biz> node), never by Baileys.
      getMessage: async (key) => {
        const message = key.id ? await this.context.sent.find(key.id) : undefined;
        return this.resends && NodeCarryingResends.handles(message) ? undefined : message;
      },
      msgRetryCounterCache: memory.retryCounters,
      userDevicesCache: memory.userDevices,
      placeholderResendCache: memory.placeholderResends,
      callOfferCache: memory.callOffers,
    };
  }

  private onConnectionUpdate(socket: WhatsAppSocket, update: Partial<ConnectionState>): void {
    if (this.socket !== socket) return;
    if (update.connection === 'close') {
      this.onSocketEnded(update);
      return;
    }
    if (this.phase === 'ended') return;
    if (typeof update.qr === 'string' && update.qr !== '' && this.phase === 'awaiting_login') {
      this.markLoginReady();
      if (this.offeredLogin !== 'pairing_code') {
        this.offeredLogin = 'qr';
        this.emit({ type: 'qr', qr: update.qr });
      }
    }
    if (update.isNewLogin && this.phase === 'awaiting_login') {
      // Scanned or code entered: the server restarts the connection (515), then it opens linked.
      this.clearLoginTimer();
      this.offeredLogin = null;
      this.phase = 'connecting';
      this.emit({ type: 'connecting' });
    }
    if (update.connection === 'open') {
      this.clearLoginTimer();
      this.reconnects.opened();
      this.offeredLogin = null;
      this.phase = 'connected';
      this.emit({
        type: 'connected',
        phoneNumber: phoneDigits(socket.user?.id ?? this.context.auth.state.creds.me?.id),
      });
      void this.redelivery.kick();
      void this.resendUnacked(socket);
    }
  }

  /**
   * Baileys emits `close` before it destroys the socket's event buffer: what the buffer holds was
   * receipted, so it is emitted (and taken by this socket's listeners) before the socket is let go.
   */
  private onSocketEnded(update: Partial<ConnectionState>): void {
    this.bufferDrain?.drain();
    this.detachSocket();
    if (this.phase === 'ended') return;
    const error = update.lastDisconnect?.error as (Error & { output?: { statusCode?: number } }) | undefined;
    this.onSocketClosed(error?.output?.statusCode, error?.message ?? '');
  }

  private onSocketClosed(statusCode: number | undefined, message: string): void {
    if (this.phase === 'ended') return;
    this.reconnects.closed(statusCode);
    const decision = decideAfterClose({
      statusCode,
      message,
      linked: this.phase !== 'awaiting_login',
      loginOffered: this.offeredLogin !== null,
      loginExpired: this.loginExpired,
      refusals: this.reconnects.refusals,
      maxRefusals: this.context.settings.maxRefusals,
    });
    // WhatsApp refuses clients older than its minimum: learn the current version before retrying.
    if (statusCode === WA_STATUS.clientOutdated) void this.context.versions.refresh();
    this.context.logger.info(
      { statusCode, reason: message, decision: decision.action },
      'WhatsApp connection closed',
    );
    if (decision.action === 'end') {
      void this.finish(decision.reason, { clearCredentials: decision.clearCredentials });
      return;
    }
    if (this.phase === 'connected') {
      this.phase = 'connecting';
      this.emit({ type: 'connecting' });
    }
    if (this.phase === 'awaiting_login' && decision.action === 'reconnect_later') this.forgetUnusedCode();
    const delay = this.reconnects.delayAfter(decision);
    this.context.logger.info(
      {
        attempt: this.reconnects.attempt,
        delayMs: delay,
        refused: decision.action === 'reconnect_later' && decision.refused,
      },
      'reconnecting to WhatsApp',
    );
    this.scheduleConnect(delay);
  }

  private detachSocket(): WhatsAppSocket | null {
    const socket = this.socket;
    // What the socket's buffer gave up (drained before this) goes on, in arrival order.
    this.arrivals?.flush();
    this.arrivals = null;
    this.socket = null;
    this.resends?.stop();
    this.bufferDrain?.stop();
    this.bufferDrain = null;
    this.clearScheduledStart();
    return socket;
  }

  private clearScheduledStart(): void {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.cancelStart?.();
    this.cancelStart = null;
  }

  // ── Login ──

  private restartLoginTimer(): void {
    this.clearLoginTimer();
    this.loginExpired = false;
    this.loginTimer = setTimeout(() => this.loginLapsed(), this.context.settings.loginTimeoutMs).unref();
  }

  private clearLoginTimer(): void {
    clearTimeout(this.loginTimer);
    this.loginTimer = undefined;
  }

  private loginLapsed(): void {
    if (this.phase !== 'awaiting_login') return;
    this.loginExpired = true;
    const offered = this.offeredLogin !== null;
    stopSocket(this.detachSocket());
    // An unscanned QR or an unused pairing code leaves nothing worth keeping.
    void this.finish(offered ? 'qr_timeout' : 'network_error', { clearCredentials: true });
  }

  /**
   * A pairing code stores the number as `me` before the phone confirms; a socket opened over such
   * credentials logs in as that (unregistered) device and WhatsApp answers 401, which would end
   * the session `logged_out`. So after a drop before the code was used, the next socket registers
   * afresh and offers a QR (the code died with the old connection; a new one can be asked for).
   */
  private forgetUnusedCode(): void {
    const creds = this.context.auth.state.creds;
    if (!creds.me || this.context.auth.linked) return;
    creds.me = undefined;
    creds.pairingCode = undefined;
    this.offeredLogin = null;
    this.context.auth
      .saveCreds()
      .catch((error: unknown) =>
        this.context.logger.error({ err: error }, 'could not store WhatsApp credentials'),
      );
  }

  private markLoginReady(): void {
    this.loginReady = true;
    for (const wake of this.loginReadyWaiters.splice(0)) wake();
  }

  private async waitForLoginReady(timeoutMs: number): Promise<void> {
    if (this.loginReady && this.socket) return;
    let wake: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      wake = resolve;
      this.loginReadyWaiters.push(resolve);
    });
    try {
      await withTimeout(ready, Math.max(1, timeoutMs));
    } catch {
      throw new NetworkSendError(
        'network_error',
        'WhatsApp could not be reached to request a pairing code; the session keeps trying, ask again shortly',
      );
    } finally {
      this.loginReadyWaiters = this.loginReadyWaiters.filter((waiter) => waiter !== wake);
    }
  }

  // ── Sending ──

  private connectedSocket(): WhatsAppSocket {
    if (this.phase !== 'connected' || !this.socket) {
      throw new NetworkSendError('session_not_connected', 'the session is not connected');
    }
    return this.socket;
  }

  /** `status`: a status post's audience, which a resend needs again. */
  private async relay(
    to: string,
    work: (socket: WhatsAppSocket) => Promise<WAMessage | undefined>,
    status?: { statusJidList: string[] },
  ): Promise<SentKey> {
    const socket = this.connectedSocket();
    const sending = this.sendAndRecord(socket, to, work, status);
    this.unrecordedSends.add(sending);
    try {
      return await sending;
    } finally {
      this.unrecordedSends.delete(sending);
    }
  }

  private async sendAndRecord(
    socket: WhatsAppSocket,
    to: string,
    work: (socket: WhatsAppSocket) => Promise<WAMessage | undefined>,
    status?: { statusJidList: string[] },
  ): Promise<SentKey> {
    let sent: WAMessage | undefined;
    try {
      // The caller gave up already (the command waited): nothing may go out for it.
      if (sendDeadlinePassed()) throw notSentInTime();
      sent = await untilDeadline(withTimeout(work(socket), this.context.settings.sendTimeoutMs));
    } catch (error) {
      if (error instanceof NetworkSendError) throw error;
      // The deadline guard refused the stanza (deadline-guard.ts): it never left.
      if (sendDeadlinePassed()) throw notSentInTime();
      throw new NetworkSendError('network_error', `WhatsApp did not take the message: ${messageOf(error)}`);
    }
    const id = sent?.key.id;
    if (!id) throw new NetworkSendError('network_error', 'WhatsApp did not return a message key');
    const remoteJid = sent?.key.remoteJid ?? to;
    if (sent?.message) this.unacked.record(id, remoteJid, sent.message, socket, status?.statusJidList);
    await this.context.sent.remember(id, sent?.message, remoteJid);
    this.context.memory.sentTo.set(id, remoteJid);
    return { remoteJid, fromMe: true, id };
  }

  /**
   * A new socket opened: what earlier sockets sent and WhatsApp never acknowledged (a connection
   * that went quiet took the stanza and carried it nowhere) goes out again on it, in send order and
   * under the same id, so the contact gets it once; after MAX_UNACKED_RESENDS tries it is reported
   * failed instead. A resend that fails stays for the next socket.
   */
  private async resendUnacked(socket: WhatsAppSocket): Promise<void> {
    const { resend, giveUp } = this.unacked.dueOn(socket);
    for (const send of giveUp) this.reportFailed(send, 'WhatsApp never acknowledged it');
    for (const send of resend) {
      if (this.socket !== socket || this.phase !== 'connected') return;
      send.socket = socket;
      send.resends += 1;
      this.context.logger.info(
        { messageId: send.id, attempt: send.resends },
        'sending again a message WhatsApp did not acknowledge before the connection dropped',
      );
      try {
        await withTimeout(
          socket.relayMessage(send.to, send.message, {
            messageId: send.id,
            ...(send.statusJidList ? { statusJidList: send.statusJidList } : {}),
            ...(NodeCarryingResends.handles(send.message)
              ? { additionalNodes: nativeFlowStanzaNodes(send.to, Date.now()) }
              : {}),
          }),
          this.context.settings.sendTimeoutMs,
        );
      } catch (error) {
        this.context.logger.warn(
          { err: error, messageId: send.id },
          'sending an unacknowledged message again failed',
        );
      }
    }
  }

  private reportFailed(send: UnackedSend, why: string): void {
    this.context.logger.warn({ messageId: send.id, resends: send.resends }, `message not delivered: ${why}`);
    this.context.events.onMessageStatus({
      messageId: send.id,
      to: send.to,
      status: 'failed',
      at: new Date(),
    });
  }

  // ── Statuses of sent messages ──

  /**
   * Reports a status of a message sent through the API (remembered in memory, or kept in the
   * archive from before a restart); statuses of messages sent from the phone are not reported.
   * One message's statuses are reported in the order they arrived: a later one found at once must
   * not overtake an earlier one still being looked up, or the worker takes the earlier step for
   * one already passed and drops it.
   */
  private reportStatus(own: OwnMessageStatus | null): void {
    if (own === null) return;
    // Taken on arrival: a send still in flight now may be the one this status is about, even if
    // it is recorded while the archive is being asked (found by the WhatsApp emulator).
    const inFlight = [...this.unrecordedSends];
    const { messageId } = own;
    const earlier = this.reportingStatuses.get(messageId) ?? Promise.resolve();
    const reporting = earlier.then(() => this.lookUpAndReport(own, inFlight));
    this.reportingStatuses.set(messageId, reporting);
    void reporting.finally(() => {
      if (this.reportingStatuses.get(messageId) === reporting) this.reportingStatuses.delete(messageId);
    });
  }

  /** Reports `own` if its message was sent through the API; never rejects. */
  private async lookUpAndReport(own: OwnMessageStatus, inFlight: Promise<unknown>[]): Promise<void> {
    try {
      let to = await this.sentDestination(own);
      if (to === undefined && inFlight.length > 0) {
        await Promise.allSettled(inFlight);
        to = await this.sentDestination(own);
      }
      if (to === undefined) return;
      this.context.events.onMessageStatus({ messageId: own.messageId, to, status: own.status, at: own.at });
    } catch (error) {
      this.context.logger.warn({ err: error, messageId: own.messageId }, 'message status not reported');
    }
  }

  /** Where a message this session sent through the API went; undefined for any other message. */
  private async sentDestination(own: OwnMessageStatus): Promise<string | undefined> {
    const remembered = this.context.memory.sentTo.get(own.messageId);
    if (remembered !== undefined) return remembered;
    return (await this.context.sent.find(own.messageId)) ? own.chat : undefined;
  }

  // ── Inbound ──

  /**
   * Baileys acknowledges a message to WhatsApp before it emits it, so the driver cannot hold the
   * network's ack back. Instead each message is written to the durable outbox before anything
   * else happens to it, batches one after another in arrival order (`receiving`); a write that
   * fails is retried while the session lives, holding the later ones back.
   */
  private receive(socket: WhatsAppSocket, messages: WAMessage[]): Promise<void> {
    this.receiving = this.receiving.then(() => this.keepAll(socket, messages));
    return this.receiving;
  }

  private async keepAll(socket: WhatsAppSocket, messages: WAMessage[]): Promise<void> {
    for (const raw of messages) {
      const id = raw.key?.id;
      if (!id || this.context.memory.delivered.has(id)) continue;
      if (this.undecryptable(raw, id)) continue;
      const pollUpdate = pollUpdateOf(raw);
      if (pollUpdate) {
        await this.receiveVote(socket, raw, pollUpdate);
        continue;
      }
      let message;
      try {
        const sender = await resolveSenderPhoneJid(raw, (lid) =>
          socket.signalRepository.lidMapping.getPNForLID(lid),
        );
        message = toInboundMessage(raw, sender);
      } catch (error) {
        this.context.logger.warn({ err: error, messageId: id }, 'could not read an inbound message; skipped');
        continue;
      }
      if (message === null) continue;
      await this.keepUntilStored(message, this.context.quotes.sealReceived(raw, message));
      // Inbound media hook, after the message is durable and before this batch is delivered (the
      // kick below), so a bot that fetches the file as soon as it hears of it finds it.
      if (message.media) await this.context.media.remember(this.ref, raw);
    }
    void this.redelivery.kick();
  }

  /**
   * A vote on a poll: Baileys hands it on encrypted (its own decryption is switched off), so it is
   * opened here with the secret of the poll's creation message, which this session kept when it
   * sent the poll. A vote on a poll it has no record of is dropped.
   */
  private async receiveVote(
    socket: WhatsAppSocket,
    raw: WAMessage,
    update: proto.Message.IPollUpdateMessage,
  ): Promise<void> {
    const pollId = update.pollCreationMessageKey?.id;
    const creation = pollId ? await this.context.sent.find(pollId) : undefined;
    if (!creation) {
      this.context.logger.info(
        { messageId: raw.key.id, pollId },
        'a vote on a poll this session does not keep; dropped',
      );
      return;
    }
    const key = raw.key;
    const inGroup = (key.remoteJid ?? '').endsWith('@g.us');
    let phoneJid: string | null = null;
    try {
      phoneJid = await resolveSenderPhoneJid(raw, (lid) =>
        socket.signalRepository.lidMapping.getPNForLID(lid),
      );
    } catch {
      // Unresolved: the voter is named by the id WhatsApp gave.
    }
    const sender = inGroup ? key.participant : key.remoteJid;
    phoneJid ??= sender?.endsWith('@s.whatsapp.net') ? sender : null;
    const me = socket.user ?? this.context.auth.state.creds.me;
    const vote = decryptedVote(
      raw,
      update,
      creation,
      {
        creators: [me?.id, me?.lid],
        voters: [sender, inGroup ? key.participantAlt : key.remoteJidAlt, phoneJid],
      },
      phoneJid ? phoneDigits(phoneJid) : null,
    );
    if (!vote) {
      this.context.logger.warn({ messageId: key.id, pollId }, 'a poll vote could not be decrypted; dropped');
      return;
    }
    this.context.memory.delivered.set(vote.id, true);
    this.context.events.onPollVote?.(vote);
  }

  /** Counts and logs (without content or sender) a message Baileys could not decrypt. */
  private undecryptable(raw: WAMessage, messageId: string): boolean {
    const reason = undecryptableReason(raw);
    if (reason === null) return false;
    this.context.settings.onUndecryptable?.();
    this.context.logger.warn(
      { messageId, reason },
      'a received message could not be decrypted (Baileys asked the sender to retry); not delivered',
    );
    return true;
  }

  private async keepUntilStored(message: InboundNetworkMessage, quote: Buffer | undefined): Promise<void> {
    for (;;) {
      try {
        return await this.context.inbox.keep(message, quote);
      } catch (error) {
        // Closing (`close()` waits for this before it finishes): retried for a grace, not forever,
        // or a close during a PostgreSQL outage never returns and the shard never moves (issue 28).
        if (this.phase === 'ended') this.storeGiveUpAt ??= Date.now() + CLOSE_STORE_GRACE_MS;
        if (this.finished || (this.storeGiveUpAt !== null && Date.now() >= this.storeGiveUpAt)) {
          this.context.logger.error(
            { err: error, messageId: message.id },
            'inbound message could not be stored',
          );
          return;
        }
        this.context.logger.warn(
          { err: error, messageId: message.id },
          'inbound message not stored yet; retrying',
        );
        await new Promise((resolve) => setTimeout(resolve, this.context.settings.redeliveryIntervalMs));
      }
    }
  }

  /** False when a message is still waiting and needs a retry. */
  private async deliverRound(): Promise<boolean> {
    try {
      return await this.context.inbox.deliver(
        (message) => this.context.events.onInbound(message),
        () => this.phase === 'ended',
      );
    } catch (error) {
      this.context.logger.warn({ err: error }, 'inbound delivery failed; retrying');
      return false;
    }
  }

  // ── Ending ──

  /**
   * Ends the connection for good: timers stop, the socket goes, credentials are cleared when the
   * reason voids them (before the event, so a new start can never have its fresh credentials
   * deleted by this one), and exactly one `disconnected` is emitted.
   */
  private async finish(reason: DisconnectReason, options: { clearCredentials: boolean }): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.phase = 'ended';
    stopSocket(this.detachSocket());
    this.clearLoginTimer();
    this.redelivery.stop();
    for (const wake of this.loginReadyWaiters.splice(0)) wake();
    this.context.onEnded(this);
    // Nothing will send them again: the customer hears so (message.status failed).
    for (const send of this.unacked.takeAll()) this.reportFailed(send, 'the session ended');
    if (options.clearCredentials) await this.discardCredentials();
    this.context.logger.info({ reason }, 'WhatsApp session ended');
    this.emit({ type: 'disconnected', reason });
  }

  private async discardCredentials(): Promise<void> {
    this.credentialsCleared = true;
    try {
      await this.context.auth.discard();
    } catch (error) {
      this.context.logger.error({ err: error }, 'could not clear the stored WhatsApp credentials');
    }
  }

  private emit(event: LinkEvent): void {
    // A failing listener must not break the connection's bookkeeping (it runs in socket callbacks).
    try {
      this.context.events.onLink(event);
    } catch (error) {
      this.context.logger.error({ err: error, event: event.type }, 'onLink listener threw');
    }
    for (const wake of this.linkWaiters.splice(0)) wake();
  }
}

/**
 * How long a planned close waits for Baileys to end a socket (its `close` drains what was being
 * handled meanwhile); Baileys waits for the server's close frame, which a frozen network never sends.
 */
const SOCKET_END_WAIT_MS = 2_000;

/**
 * How long a received message waits for one that arrived before it and has not come out of
 * Baileys yet (its backlog queue, a slow key store); a stanza that never becomes a message holds
 * the later ones this long at most.
 */
const ARRIVAL_WAIT_MS = 30_000;

/** Where WhatsApp status posts (stories) go. */
const STATUS_JID = 'status@broadcast';

/** How long a closing session still retries storing a received message (PostgreSQL down). */
const CLOSE_STORE_GRACE_MS = 10_000;

/** History the phone would upload that a gateway never needs. */
const SKIPPED_HISTORY = new Set<number>([
  proto.HistorySync.HistorySyncType.FULL,
  proto.HistorySync.HistorySyncType.ON_DEMAND,
]);

function stopSocket(socket: WhatsAppSocket | null): void {
  if (!socket) return;
  try {
    void Promise.resolve(socket.end(undefined)).catch(() => undefined);
  } catch {
    // Already closed.
  }
}

/** `2547…:12@s.whatsapp.net` → `2547…`. */
function phoneDigits(jid: string | null | undefined): string {
  const user = jid ? jidDecode(jid)?.user : undefined;
  return user ?? '';
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A send with a deadline (withSendDeadline) is answered by it if nothing of it has been written to
 * the network yet (it waited on the key store during a PostgreSQL outage, say): the caller gets a
 * definite "not sent" before it gives up, and the deadline guard keeps it from leaving later. Once
 * a frame is out the outcome is WhatsApp's, and the send is awaited as before.
 */
function untilDeadline<T>(work: Promise<T>): Promise<T> {
  const deadline = sendDeadline();
  if (deadline === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const lapsed = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        if (nothingLeft()) reject(notSentInTime());
      },
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([work, lapsed]).finally(() => clearTimeout(timer));
}

const notSentInTime = () =>
  new NetworkSendError(
    'unavailable',
    'The message was not sent: it could not go out before this request ran out of time (WhatsApp or the session store was slow to answer). Nothing was sent; retry it.',
  );

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Contact cards as WhatsApp shares them: one vCard per contact, named after the first. */
function contactCards(message: OutboundContact): AnyMessageContent {
  const first = message.contacts[0]?.name ?? 'Contact';
  return {
    contacts: {
      displayName: message.contacts.length === 1 ? first : `${first} and ${message.contacts.length - 1} more`,
      contacts: message.contacts.map((contact) => ({
        displayName: contact.name,
        vcard: contactVcard(contact.name, contact.phoneNumber),
      })),
    },
  };
}
