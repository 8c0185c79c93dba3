import { isValidPhoneNumber } from '@jumbe/domain';
import type { DisconnectReason } from '../disconnect-reason';
import { NetworkSendError } from '../network-send-error';
import { NotReadyError } from '../not-ready-error';
import { messageOf } from './error-message';
import type { SessionLinkEvents } from './session-link-events';
import type { WhatsAppSessionContext } from './whatsapp-session-context';
import type { WhatsAppSocket } from './whatsapp-socket';
import { withTimeout } from './with-timeout';

/** What a login needs to know of the session's connection. */
export interface LoginConnection {
  /** The session waits for a phone to scan a QR or type a code. */
  awaitingLogin(): boolean;
  currentSocket(): WhatsAppSocket | null;
  /** The login lapsed unused: the connection ends for `reason`, its credentials cleared. */
  lapse(reason: DisconnectReason): void;
}

type LoginContext = Pick<WhatsAppSessionContext, 'settings' | 'auth' | 'logger'>;

/**
 * A fresh session's login: the QR or pairing code offered to the phone, how long it stays
 * offered, and whether the current socket can issue a pairing code yet.
 */
export class SessionLogin {
  /** Which login the phone is currently offered (a QR refresh must not replace a pairing code). */
  private offered: 'qr' | 'pairing_code' | null = null;
  private expired = false;
  /** The current socket has reached WhatsApp and shown a QR: a pairing code can be asked for. */
  private ready = false;
  private readyWaiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly context: LoginContext,
    private readonly link: SessionLinkEvents,
    private readonly connection: LoginConnection,
  ) {}

  /** A login (QR or pairing code) is offered to the phone. */
  get isOffered(): boolean {
    return this.offered !== null;
  }

  /** The phone was offered a pairing code (closing then voids the credentials it stored). */
  get offersPairingCode(): boolean {
    return this.offered === 'pairing_code';
  }

  /** The login lapsed unused (the close that follows ends the session). */
  get hasExpired(): boolean {
    return this.expired;
  }

  async requestPairingCode(phoneNumber: string): Promise<string> {
    if (!isValidPhoneNumber(phoneNumber)) throw new RangeError('phoneNumber must be 7 to 15 digits');
    if (!this.connection.awaitingLogin()) throw new NotReadyError('the session is not waiting for a login');
    // One deadline for the whole request, so the caller (a gateway command) gets an answer in time.
    const deadline = Date.now() + this.context.settings.pairingCodeWaitMs;
    await this.waitForReady(deadline - Date.now());
    const socket = this.connection.currentSocket();
    if (!this.connection.awaitingLogin() || !socket) {
      throw new NotReadyError('the session stopped waiting for a login');
    }
    // Before the request: a QR refresh arriving meanwhile must not replace the code.
    this.offered = 'pairing_code';
    let code: string;
    try {
      code = await withTimeout(socket.requestPairingCode(phoneNumber), Math.max(1, deadline - Date.now()));
    } catch (error) {
      this.offered = 'qr';
      throw new NetworkSendError(
        'network_error',
        `WhatsApp did not issue a pairing code: ${messageOf(error)}`,
      );
    }
    if (!this.connection.awaitingLogin()) throw new NotReadyError('the session stopped waiting for a login');
    this.restartTimer();
    this.link.emit({ type: 'pairing_code', code });
    return code;
  }

  /** The current socket reached WhatsApp with a QR to show (unless a pairing code is offered). */
  qrArrived(qr: string): void {
    this.markReady();
    if (this.offered !== 'pairing_code') {
      this.offered = 'qr';
      this.link.emit({ type: 'qr', qr });
    }
  }

  /** The phone scanned the QR or entered the code, or a linked socket opened: no login is offered. */
  linked(): void {
    this.clearTimer();
    this.offered = null;
  }

  /** A new socket: no pairing code can be asked of it before it shows a QR. */
  socketChanged(): void {
    this.ready = false;
  }

  restartTimer(): void {
    this.clearTimer();
    this.expired = false;
    this.timer = setTimeout(() => this.lapsed(), this.context.settings.loginTimeoutMs).unref();
  }

  clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The session ended: whoever waits for a pairing code stops waiting. */
  wakeWaiters(): void {
    for (const wake of this.readyWaiters.splice(0)) wake();
  }

  /**
   * A pairing code stores the number as `me` before the phone confirms; a socket opened over such
   * credentials logs in as that (unregistered) device and WhatsApp answers 401, which would end
   * the session `logged_out`. So after a drop before the code was used, the next socket registers
   * afresh and offers a QR (the code died with the old connection; a new one can be asked for).
   */
  forgetUnusedCode(): void {
    const creds = this.context.auth.state.creds;
    if (!creds.me || this.context.auth.linked) return;
    creds.me = undefined;
    creds.pairingCode = undefined;
    this.offered = null;
    this.context.auth
      .saveCreds()
      .catch((error: unknown) =>
        this.context.logger.error({ err: error }, 'could not store WhatsApp credentials'),
      );
  }

  private lapsed(): void {
    if (!this.connection.awaitingLogin()) return;
    this.expired = true;
    // An unscanned QR or an unused pairing code leaves nothing worth keeping.
    this.connection.lapse(this.offered !== null ? 'qr_timeout' : 'network_error');
  }

  private markReady(): void {
    this.ready = true;
    for (const wake of this.readyWaiters.splice(0)) wake();
  }

  private async waitForReady(timeoutMs: number): Promise<void> {
    if (this.ready && this.connection.currentSocket()) return;
    let wake: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      wake = resolve;
      this.readyWaiters.push(resolve);
    });
    try {
      await withTimeout(ready, Math.max(1, timeoutMs));
    } catch {
      throw new NetworkSendError(
        'network_error',
        'WhatsApp could not be reached to request a pairing code; the session keeps trying, ask again shortly',
      );
    } finally {
      this.readyWaiters = this.readyWaiters.filter((waiter) => waiter !== wake);
    }
  }
}
