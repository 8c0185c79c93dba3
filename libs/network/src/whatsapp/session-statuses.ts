import type { WhatsAppSessionContext } from './whatsapp-session-context';
import { type OwnMessageStatus, statusOfReceipt, statusOfUpdate } from './status-mapper';
import type { WhatsAppSocket } from './whatsapp-socket';

type StatusesContext = Pick<WhatsAppSessionContext, 'memory' | 'sent' | 'events' | 'logger'>;

/**
 * Reports the statuses (sent, delivered, read, played, failed) of messages this session sent
 * through the API; statuses of messages sent from the phone are not reported.
 */
export class SessionStatuses {
  /** Per message id, its statuses still being looked up, chained in arrival order. */
  private readonly reporting = new Map<string, Promise<void>>();

  constructor(
    private readonly context: StatusesContext,
    /** Sends being handed to Baileys now (SessionSender.inFlight). */
    private readonly sendsInFlight: () => Promise<unknown>[],
    /** Whether `socket` is still the session's socket (an old one's events are ignored). */
    private readonly isCurrent: (socket: WhatsAppSocket) => boolean,
  ) {}

  /** Takes the statuses `socket` reports of messages (updates and receipts). */
  listenTo(socket: WhatsAppSocket): void {
    socket.ev.on('messages.update', (updates) => {
      if (!this.isCurrent(socket)) return;
      for (const update of updates) this.report(statusOfUpdate(update, new Date()));
    });
    socket.ev.on('message-receipt.update', (receipts) => {
      if (!this.isCurrent(socket)) return;
      for (const receipt of receipts) this.report(statusOfReceipt(receipt, new Date()));
    });
  }

  /**
   * Reports a status of a message sent through the API (remembered in memory, or kept in the
   * archive from before a restart); statuses of messages sent from the phone are not reported.
   * One message's statuses are reported in the order they arrived: a later one found at once must
   * not overtake an earlier one still being looked up, or the worker takes the earlier step for
   * one already passed and drops it.
   */
  report(own: OwnMessageStatus | null): void {
    if (own === null) return;
    // Taken on arrival: a send still in flight now may be the one this status is about, even if
    // it is recorded while the archive is being asked (found by the WhatsApp emulator).
    const inFlight = this.sendsInFlight();
    const { messageId } = own;
    const earlier = this.reporting.get(messageId) ?? Promise.resolve();
    const reporting = earlier.then(() => this.lookUpAndReport(own, inFlight));
    this.reporting.set(messageId, reporting);
    void reporting.finally(() => {
      if (this.reporting.get(messageId) === reporting) this.reporting.delete(messageId);
    });
  }

  /** Reports `own` if its message was sent through the API; never rejects. */
  private async lookUpAndReport(own: OwnMessageStatus, inFlight: Promise<unknown>[]): Promise<void> {
    try {
      // Memory first, and the sends in flight before the archive: a status often arrives before
      // its send is recorded, and asking PostgreSQL then only to ask again cost a round trip on
      // many sends (issue 32).
      let to = this.context.memory.sentTo.get(own.messageId);
      if (to === undefined && inFlight.length > 0) {
        await Promise.allSettled(inFlight);
        to = this.context.memory.sentTo.get(own.messageId);
      }
      to ??= await this.archivedDestination(own);
      if (to === undefined) return;
      this.context.events.onMessageStatus({ messageId: own.messageId, to, status: own.status, at: own.at });
    } catch (error) {
      this.context.logger.warn({ err: error, messageId: own.messageId }, 'message status not reported');
    }
  }

  /**
   * Where a message this session sent through the API before this process remembers went (the
   * archive keeps a day of them); undefined for any other message.
   */
  private async archivedDestination(own: OwnMessageStatus): Promise<string | undefined> {
    return (await this.context.sent.find(own.messageId)) ? own.chat : undefined;
  }
}
