import type { ConnectionState } from '@whiskeysockets/baileys';
import type { DisconnectReason } from '../disconnect-reason';
import { NetworkSendError } from '../network-send-error';
import { guardFramesByDeadline } from './deadline-guard';
import { decideAfterClose, WA_STATUS } from './disconnect-policy';
import { messageOf } from './error-message';
import { EventBufferDrain } from './event-buffer-drain';
import type { MediaReupload } from './inbound-media-reupload';
import { NodeCarryingResends } from './node-carrying-resends';
import { phoneDigits } from './phone-digits';
import { ReconnectPolicy } from './reconnect-policy';
import type { SessionLinkEvents } from './session-link-events';
import type { SessionLogin } from './session-login';
import { socketConfigOf } from './socket-config';
import { participantsEventOf, updatedEventOf } from './whatsapp-group-events';
import type { WhatsAppSessionContext } from './whatsapp-session-context';
import type { WhatsAppSocket } from './whatsapp-socket';

/**
 * Where the connection is: waiting for a phone to scan or type a code, linked and (re)connecting,
 * connected, or ended for good (one `disconnected` was emitted; a new start is a new `open`).
 */
export type Phase = 'awaiting_login' | 'connecting' | 'connected' | 'ended';

/** What the connection tells the rest of the session. */
export interface ConnectionHooks {
  /** A new socket: the other parts take what it receives and reports. */
  listenTo(socket: WhatsAppSocket): void;
  /** The socket is being let go (what its buffer held was drained before). */
  lettingGo(): void;
  /** `socket` opened, linked: what waits for a connection goes out on it. */
  opened(socket: WhatsAppSocket): void;
  /** What the previous connection (or owner) stored but did not hand over. */
  deliverStored(): void;
  /** The connection ends for good (SessionEnding.finish). */
  end(reason: DisconnectReason, options: { clearCredentials: boolean }): void;
  /** The one `disconnected` has been (or is being) emitted. */
  hasFinished(): boolean;
}

/**
 * One session's sockets: when the next one opens (staggered, backed off), the options Baileys
 * gets, what each socket's connection updates mean (login, open, close), and whether a close
 * reconnects or ends the session. Events of a socket that was replaced are ignored.
 */
export class SessionConnection {
  private phase: Phase = 'connecting';
  private socket: WhatsAppSocket | null = null;
  /** Cancels a scheduled (staggered or backed-off) socket start. */
  private cancelStart: (() => void) | null = null;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** When the next socket opens after a close (backoff, refusals, restarts in a row). */
  private readonly reconnects: ReconnectPolicy;
  /** Answers retry receipts of interactive messages on the current socket (null: Baileys does). */
  private resends: NodeCarryingResends | null = null;
  /** Gets receipted messages out of the current socket's event buffer (EventBufferDrain). */
  private bufferDrain: EventBufferDrain | null = null;

  constructor(
    private readonly context: WhatsAppSessionContext,
    private readonly login: SessionLogin,
    private readonly link: SessionLinkEvents,
    private readonly hooks: ConnectionHooks,
  ) {
    this.reconnects = new ReconnectPolicy(context.settings);
  }

  /** Fresh login: a socket that will offer a QR. */
  beginLogin(): void {
    this.phase = 'awaiting_login';
    this.login.restartTimer();
    this.scheduleConnect(0);
  }

  /** Reconnect from stored credentials, as a linked device does after a restart. */
  beginReconnect(): void {
    this.phase = 'connecting';
    // Events start once `open` has returned the session to its caller.
    setImmediate(() => {
      if (this.phase !== 'connecting') return;
      this.link.emit({ type: 'connecting' });
      this.scheduleConnect(0);
      // What the previous connection (or owner) stored but did not hand over goes first.
      this.hooks.deliverStored();
    });
  }

  phaseNow(): Phase {
    return this.phase;
  }

  /** Read through a method so the compiler does not narrow the phase across an await. */
  hasEnded(): boolean {
    return this.phase === 'ended';
  }

  /** No socket opens again, and every event from now on is ignored. */
  markEnded(): void {
    this.phase = 'ended';
  }

  currentSocket(): WhatsAppSocket | null {
    return this.socket;
  }

  /** Whether `socket` is still the session's socket (an old one's events are ignored). */
  isCurrent(socket: WhatsAppSocket): boolean {
    return this.socket === socket;
  }

  isConnectedOn(socket: WhatsAppSocket): boolean {
    return this.socket === socket && this.phase === 'connected';
  }

  connectedSocket(): WhatsAppSocket {
    if (this.phase !== 'connected' || !this.socket) {
      throw new NetworkSendError('session_not_connected', 'the session is not connected');
    }
    return this.socket;
  }

  /**
   * Retries of an interactive message sent on the current socket are answered by
   * NodeCarryingResends (with its <biz> node), not by Baileys.
   */
  interactiveSent(socket: WhatsAppSocket, messageId: string): void {
    if (this.socket === socket) this.resends?.forgetInBaileys(messageId);
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

  /** Opens a socket now when there is none, skipping the backoff and the launch queue. */
  connectNowIfIdle(): void {
    if (this.socket) return;
    this.clearScheduledStart();
    void this.connect();
  }

  /** Emits what Baileys still buffers, while the socket's listeners still take it. */
  drainBuffer(): void {
    this.bufferDrain?.drain();
  }

  detachSocket(): WhatsAppSocket | null {
    const socket = this.socket;
    // What the socket's buffer gave up (drained before this) goes on, in arrival order.
    this.hooks.lettingGo();
    this.socket = null;
    this.resends?.stop();
    this.bufferDrain?.stop();
    this.bufferDrain = null;
    this.clearScheduledStart();
    return socket;
  }

  clearScheduledStart(): void {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.cancelStart?.();
    this.cancelStart = null;
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
      this.hooks.end('shutdown', { clearCredentials: false });
      return;
    }
    this.login.socketChanged();
    let socket: WhatsAppSocket;
    try {
      const config = socketConfigOf(this.context, {
        currentSocket: () => this.socket,
        resendsCarryNodes: () => this.resends !== null,
      });
      socket = this.context.socketFactory({ ...config, ...(version ? { version } : {}) });
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
      if (this.hooks.hasFinished()) return;
      this.context.auth
        .saveCreds()
        .catch((error: unknown) =>
          this.context.logger.error({ err: error }, 'could not store WhatsApp credentials'),
        );
    });
    this.keepGroupMetadata(socket);
    this.hooks.listenTo(socket);
  }

  /**
   * Fills the group-metadata cache Baileys reads before a group send: from the groups the server
   * announces, and on a miss from one lookup of ours (socket-config.ts) that later sends reuse;
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

  private onConnectionUpdate(socket: WhatsAppSocket, update: Partial<ConnectionState>): void {
    if (this.socket !== socket) return;
    if (update.connection === 'close') {
      this.onSocketEnded(update);
      return;
    }
    if (this.phase === 'ended') return;
    if (typeof update.qr === 'string' && update.qr !== '' && this.phase === 'awaiting_login') {
      this.login.qrArrived(update.qr);
    }
    if (update.isNewLogin && this.phase === 'awaiting_login') {
      // Scanned or code entered: the server restarts the connection (515), then it opens linked.
      this.login.linked();
      this.phase = 'connecting';
      this.link.emit({ type: 'connecting' });
    }
    if (update.connection === 'open') {
      this.login.linked();
      this.reconnects.opened();
      this.phase = 'connected';
      this.link.emit({
        type: 'connected',
        phoneNumber: phoneDigits(socket.user?.id ?? this.context.auth.state.creds.me?.id),
      });
      this.hooks.opened(socket);
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
      loginOffered: this.login.isOffered,
      loginExpired: this.login.hasExpired,
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
      this.hooks.end(decision.reason, { clearCredentials: decision.clearCredentials });
      return;
    }
    if (this.phase === 'connected') {
      this.phase = 'connecting';
      this.link.emit({ type: 'connecting' });
    }
    if (this.phase === 'awaiting_login' && decision.action === 'reconnect_later')
      this.login.forgetUnusedCode();
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
}

/** Ends `socket` without waiting for it (its `close` is ignored: it is no longer the session's). */
export function stopSocket(socket: WhatsAppSocket | null): void {
  if (!socket) return;
  try {
    void Promise.resolve(socket.end(undefined)).catch(() => undefined);
  } catch {
    // Already closed.
  }
}
