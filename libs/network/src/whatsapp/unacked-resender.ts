import type { proto } from '@whiskeysockets/baileys';
import { nativeFlowStanzaNodes } from './interactive-mapper';
import { NodeCarryingResends } from './node-carrying-resends';
import { type UnackedSend, UnackedSends } from './unacked-sends';
import type { WhatsAppSessionContext } from './whatsapp-session-context';
import type { WhatsAppSocket } from './whatsapp-socket';
import { withTimeout } from './with-timeout';

type ResenderContext = Pick<WhatsAppSessionContext, 'settings' | 'events' | 'logger'>;

/**
 * Sends of one session that WhatsApp's server has not acknowledged (UnackedSends): they go out
 * again on the next socket, and are reported failed when they cannot (too many tries, the session
 * ended).
 */
export class UnackedResender {
  private readonly unacked = new UnackedSends();

  constructor(
    private readonly context: ResenderContext,
    /** Whether `socket` is still the session's socket, and connected. */
    private readonly isConnectedOn: (socket: WhatsAppSocket) => boolean,
  ) {}

  /**
   * A send that went out on `socket`; `statusJidList`: a status post's audience (a resend needs
   * it); `answeredInTime`: false when its caller was answered after its deadline (UnackedSend's
   * `resendable`).
   */
  sent(
    id: string,
    to: string,
    message: proto.IMessage,
    socket: WhatsAppSocket,
    statusJidList?: string[],
    answeredInTime = true,
  ): void {
    this.unacked.record(id, to, message, socket, statusJidList, answeredInTime);
  }

  /**
   * A retry learned send `id`'s id (UnackedSends.learned): held unsent until now, it goes out on
   * `current` at once when it went into an earlier socket. False when it was given up already.
   */
  learned(id: string, current: WhatsAppSocket | null): boolean {
    if (!this.unacked.learned(id)) return false;
    const send = this.unacked.waiting(id);
    if (send && current && send.socket !== current && this.isConnectedOn(current))
      void this.resendOne(send, current);
    return true;
  }

  /** WhatsApp's server took message `id` (from any socket of this session). */
  acked(id: string): void {
    this.unacked.acked(id);
  }

  /** The session ended: nothing will send them again, so the customer hears so (message.status failed). */
  failAll(): void {
    for (const send of this.unacked.takeAll()) this.reportFailed(send, 'the session ended');
  }

  /**
   * A new socket opened: what earlier sockets sent and WhatsApp never acknowledged (a connection
   * that went quiet took the stanza and carried it nowhere) goes out again on it, in send order and
   * under the same id, so the contact gets it once; after MAX_UNACKED_RESENDS tries it is reported
   * failed instead. A resend that fails stays for the next socket.
   */
  async resendOn(socket: WhatsAppSocket): Promise<void> {
    const { resend, giveUp } = this.unacked.dueOn(socket);
    for (const send of giveUp)
      this.reportFailed(
        send,
        send.resendable
          ? 'WhatsApp never acknowledged it'
          : 'WhatsApp never acknowledged it, its caller was answered "timeout", and no retry learned its id',
      );
    for (const send of resend) {
      if (!this.isConnectedOn(socket)) return;
      // Sent again on this socket meanwhile (a retry learned its id: `learned`).
      if (send.socket === socket) continue;
      await this.resendOne(send, socket);
    }
  }

  /** One send out again on `socket`, under its id; marked as sent there before it goes. */
  private async resendOne(send: UnackedSend, socket: WhatsAppSocket): Promise<void> {
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

  private reportFailed(send: UnackedSend, why: string): void {
    this.context.logger.warn({ messageId: send.id, resends: send.resends }, `message not delivered: ${why}`);
    this.context.events.onMessageStatus({
      messageId: send.id,
      to: send.to,
      status: 'failed',
      at: new Date(),
    });
  }
}
