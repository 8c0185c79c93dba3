import { type InboundNetworkMessage, receivedMessageBinding, type SecretBox } from '@jumbe/domain';
import type { WAMessage } from '@whiskeysockets/baileys';
import type { Logger } from 'pino';
import { NetworkSendError } from '../network-send-error';
import type { SessionRef } from '../session-ref';
import {
  decodeQuotable,
  encodeQuotable,
  type QuotableMessage,
  quotableOfReceived,
  quotableOfSent,
  quotedFor,
} from './quotable-message';
import type { ReceivedMessageStore } from './received-message-store';
import type { SentMessageArchive } from './sent-message-archive';
import type { SessionMemory } from './session-memory';

/**
 * The messages one session can quote in a reply: those it received (sealed like credentials and
 * stored with the inbound outbox, the recent ones also in memory) and those it sent (the
 * SentMessageArchive, which keeps each one's chat). A quote names a message of the reply's chat
 * only: a message of another chat, another session or another account is as unknown as none.
 */
export class QuoteArchive {
  constructor(
    private readonly ref: SessionRef,
    private readonly memory: SessionMemory,
    private readonly received: ReceivedMessageStore | undefined,
    private readonly sent: SentMessageArchive,
    private readonly cipher: SecretBox,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /**
   * The sealed copy of a received message to store with it (InboundOutbox.add's `quote`), or
   * undefined when it is nothing a reply can quote. Never fails the message's way in.
   */
  sealReceived(raw: WAMessage, inbound: InboundNetworkMessage): Buffer | undefined {
    try {
      const quotable = quotableOfReceived(raw, inbound);
      if (!quotable) return undefined;
      const plain = encodeQuotable(quotable);
      this.memory.received.set(quotable.id, quotable, { size: plain.length });
      return this.cipher.sealBytes(plain, this.boundTo(quotable.id));
    } catch (error) {
      this.logger.warn({ err: error, messageId: inbound.id }, 'a received message will not be quotable');
      return undefined;
    }
  }

  /**
   * What Baileys' `quoted` option takes for a reply sent to `chat`, or null when this session has
   * no record of the message in that chat. NetworkSendError when the store cannot be read.
   */
  async find(messageId: string, chat: string): Promise<WAMessage | null> {
    let quotable: QuotableMessage | null;
    try {
      quotable = await this.lookUp(messageId);
    } catch (error) {
      throw new NetworkSendError(
        'network_error',
        `The quoted message could not be looked up: ${(error as Error).message}`,
      );
    }
    return quotable && quotable.chats.includes(chat) ? quotedFor(quotable, chat) : null;
  }

  private async lookUp(messageId: string): Promise<QuotableMessage | null> {
    const recent = this.memory.received.get(messageId);
    if (recent) return recent;
    const [received, sent] = await Promise.all([
      this.storedReceived(messageId),
      this.sent.findWithChat(messageId),
    ]);
    if (received) return received;
    return sent ? quotableOfSent(messageId, sent.chat, sent.message) : null;
  }

  private async storedReceived(messageId: string): Promise<QuotableMessage | null> {
    const sealed = await this.received?.find(this.ref, messageId);
    if (!sealed) return null;
    try {
      const quotable = decodeQuotable(this.cipher.openBytes(sealed, this.boundTo(messageId)));
      this.memory.received.set(messageId, quotable, { size: sealed.length });
      return quotable;
    } catch (error) {
      // Sealed under another secret key, or damaged: as good as unknown.
      this.logger.warn({ err: error, messageId }, 'a kept received message could not be opened');
      return null;
    }
  }

  /** Associated data: a sealed message only opens for the session and id it was stored under. */
  private boundTo(messageId: string): string {
    return receivedMessageBinding(this.ref, messageId);
  }
}
