import type { DisconnectReason } from '../disconnect-reason';
import { type SessionConnection, stopSocket } from './session-connection';
import type { SessionLinkEvents } from './session-link-events';
import type { SessionLogin } from './session-login';
import type { SessionReceiver } from './session-receiver';
import type { UnackedResender } from './unacked-resender';
import { unlinkDevice } from './unlink-device';
import type { WhatsAppSessionContext } from './whatsapp-session-context';
import { withTimeout } from './with-timeout';

/** The parts of a session an ending stops. */
export interface EndingParts {
  connection: Pick<
    SessionConnection,
    | 'phaseNow'
    | 'hasEnded'
    | 'markEnded'
    | 'currentSocket'
    | 'connectNowIfIdle'
    | 'drainBuffer'
    | 'detachSocket'
    | 'clearScheduledStart'
  >;
  login: Pick<SessionLogin, 'offersPairingCode' | 'clearTimer' | 'wakeWaiters'>;
  receiver: Pick<SessionReceiver, 'stored' | 'stop'>;
  unacked: Pick<UnackedResender, 'failAll'>;
  link: SessionLinkEvents;
}

type EndingContext = Pick<WhatsAppSessionContext, 'settings' | 'auth' | 'logger'>;

/**
 * How a session ends: a logout (unlinks the device, clears the credentials), a planned close
 * (keeps them for the next owner), or an end the connection decided (`finish`); whichever way,
 * exactly one `disconnected`.
 */
export class SessionEnding {
  /** The one `disconnected` has been (or is being) emitted. */
  private finished = false;
  /** The stored credentials were deleted (or are being). */
  private credentialsCleared = false;

  constructor(
    private readonly context: EndingContext,
    private readonly parts: EndingParts,
    /** Tells the driver the connection ended, so it forgets it. */
    private readonly onEnded: () => void,
  ) {}

  get hasFinished(): boolean {
    return this.finished;
  }

  async logout(): Promise<void> {
    const { connection } = this.parts;
    if (connection.phaseNow() === 'ended') return;
    // A linked session between sockets must still unlink on the phone, or the phone keeps listing
    // a device whose credentials are gone: connect now with them, for a bounded time.
    if (connection.phaseNow() === 'connecting') await this.connectToUnlink();
    if (connection.hasEnded()) {
      // Ended meanwhile for another reason (403, 440, the shard lost): a logout still deletes them.
      if (!this.credentialsCleared) await this.discardCredentials();
      return;
    }
    const socket = connection.detachSocket();
    const phase = connection.phaseNow();
    const wasLinked = phase === 'connected' || phase === 'connecting';
    connection.markEnded();
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

  async close(): Promise<void> {
    const { connection, login, receiver } = this.parts;
    if (connection.phaseNow() === 'ended') return;
    const abandonedPairing = connection.phaseNow() === 'awaiting_login' && login.offersPairingCode;
    connection.markEnded();
    connection.clearScheduledStart();
    const socket = connection.currentSocket();
    if (socket) {
      // Messages Baileys still buffers were receipted to WhatsApp: emit them while this socket's
      // listeners still take them, then end the socket with its listeners attached (its `close`
      // drains again whatever was being handled meanwhile), and store every batch for the next owner.
      connection.drainBuffer();
      await withTimeout(Promise.resolve(socket.end(undefined)), SOCKET_END_WAIT_MS).catch(() => undefined);
    }
    stopSocket(connection.detachSocket());
    await receiver.stored();
    // The next owner reconnects with what is stored: let every credential write land first.
    await this.context.auth.flush();
    await this.finish('shutdown', { clearCredentials: abandonedPairing });
  }

  /**
   * Ends the connection for good: timers stop, the socket goes, credentials are cleared when the
   * reason voids them (before the event, so a new start can never have its fresh credentials
   * deleted by this one), and exactly one `disconnected` is emitted.
   */
  async finish(reason: DisconnectReason, options: { clearCredentials: boolean }): Promise<void> {
    if (this.finished) return;
    const { connection, login, receiver, unacked, link } = this.parts;
    this.finished = true;
    connection.markEnded();
    stopSocket(connection.detachSocket());
    login.clearTimer();
    receiver.stop();
    login.wakeWaiters();
    this.onEnded();
    unacked.failAll();
    if (options.clearCredentials) await this.discardCredentials();
    this.context.logger.info({ reason }, 'WhatsApp session ended');
    link.emit({ type: 'disconnected', reason });
  }

  /**
   * Opens (or waits for) a socket with the stored credentials so logout can send its unlink,
   * skipping the backoff and the launch queue; gives up after `logoutUnlinkWaitMs` (logout then
   * clears the credentials anyway). WhatsApp may end the session meanwhile (401: already unlinked).
   */
  private async connectToUnlink(): Promise<void> {
    const { connection, link } = this.parts;
    const deadline = Date.now() + this.context.settings.logoutUnlinkWaitMs;
    connection.connectNowIfIdle();
    while (connection.phaseNow() === 'connecting' && Date.now() < deadline) {
      await link.next(Math.max(1, deadline - Date.now()));
    }
  }

  private async discardCredentials(): Promise<void> {
    this.credentialsCleared = true;
    try {
      await this.context.auth.discard();
    } catch (error) {
      this.context.logger.error({ err: error }, 'could not clear the stored WhatsApp credentials');
    }
  }
}

/**
 * How long a planned close waits for Baileys to end a socket (its `close` drains what was being
 * handled meanwhile); Baileys waits for the server's close frame, which a frozen network never sends.
 */
const SOCKET_END_WAIT_MS = 2_000;
