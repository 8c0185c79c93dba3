import { type SecretBox, sentMessageBinding } from '@jumbe/domain';
import { proto } from '@whiskeysockets/baileys';
import type { Logger } from 'pino';
import type { SessionRef } from '../session-ref';
import type { SentMessageStore } from './sent-message-store';
import type { SessionMemory } from './session-memory';

/**
 * What one session sent, for Baileys' `getMessage`: a recipient that could not decrypt a message
 * asks the sender to encrypt it again. Recent messages answer from memory; every message is also
 * sealed (AES-256-GCM, like the credentials) into the durable store, so the answer survives a
 * restart, a crash and a hand-over to another worker.
 */
/** Send times remembered in memory per session (the store keeps them durably). */
const RECENT_SEND_TIMES = 1_000;

/**
 * How long a poll's creation message is kept: its secret decrypts the votes, which come as long
 * as the chat shows the poll. A month covers a poll's useful life (README, "Polls").
 */
export const POLL_KEEP_MS = 30 * 24 * 60 * 60 * 1000;

export class SentMessageArchive {
  private readonly sendTimes = new Map<string, Date>();

  constructor(
    private readonly ref: SessionRef,
    private readonly memory: SessionMemory,
    private readonly store: SentMessageStore | undefined,
    private readonly cipher: SecretBox,
    private readonly logger: Logger,
  ) {}

  /** Kept before the send is answered; a failed write is logged, never fails the send. */
  async remember(
    messageId: string,
    message: proto.IMessage | null | undefined,
    chat?: string,
  ): Promise<void> {
    if (!message) return;
    this.memory.rememberSent(messageId, message);
    this.rememberSendTime(messageId);
    if (!this.store) return;
    try {
      const bytes = Buffer.from(proto.Message.encode(message).finish());
      const sealed = this.cipher.sealBytes(bytes, this.boundTo(messageId));
      const keepUntil = isPoll(message) ? new Date(Date.now() + POLL_KEEP_MS) : undefined;
      await this.store.save(this.ref, messageId, sealed, chat, keepUntil);
    } catch (error) {
      this.logger.warn({ err: error, messageId }, 'could not keep a sent message for retry requests');
    }
  }

  async find(messageId: string): Promise<proto.IMessage | undefined> {
    const recent = this.memory.sent.get<proto.IMessage>(messageId);
    if (recent || !this.store) return recent;
    try {
      const sealed = await this.store.find(this.ref, messageId);
      if (!sealed) return undefined;
      const message = proto.Message.decode(this.cipher.openBytes(sealed, this.boundTo(messageId)));
      this.memory.rememberSent(messageId, message);
      return message;
    } catch (error) {
      this.logger.warn({ err: error, messageId }, 'could not read a sent message for a retry request');
      return undefined;
    }
  }

  /**
   * A message this session sent with the chat it went to, for a reply that quotes it; undefined
   * when unknown, or when its chat is not known (stored before chats were kept).
   */
  async findWithChat(messageId: string): Promise<{ message: proto.IMessage; chat: string } | undefined> {
    const recent = this.memory.sent.get<proto.IMessage>(messageId);
    const recentChat = this.memory.sentTo.get(messageId);
    if (recent && recentChat) return { message: recent, chat: recentChat };
    if (!this.store) return undefined;
    const stored = await this.store.findWithChat(this.ref, messageId);
    if (!stored?.chat) return undefined;
    try {
      const message = proto.Message.decode(this.cipher.openBytes(stored.value, this.boundTo(messageId)));
      return { message, chat: stored.chat };
    } catch (error) {
      // Sealed under another secret key, or damaged: as good as unknown.
      this.logger.warn({ err: error, messageId }, 'a kept sent message could not be opened for a quote');
      return undefined;
    }
  }

  /** When this session sent the message, or null when it has no record of it. */
  async sentAt(messageId: string): Promise<Date | null> {
    const recent = this.sendTimes.get(messageId);
    if (recent || !this.store) return recent ?? null;
    return this.store.sentAt(this.ref, messageId);
  }

  private rememberSendTime(messageId: string): void {
    this.sendTimes.set(messageId, new Date());
    if (this.sendTimes.size > RECENT_SEND_TIMES) {
      const oldest = this.sendTimes.keys().next().value;
      if (oldest !== undefined) this.sendTimes.delete(oldest);
    }
  }

  /** Associated data: a sealed message only opens for the session and id it was stored under. */
  private boundTo(messageId: string): string {
    return sentMessageBinding(this.ref, messageId);
  }
}

/** A poll's creation message (any of WhatsApp's three versions). */
function isPoll(message: proto.IMessage): boolean {
  return !!(message.pollCreationMessage ?? message.pollCreationMessageV2 ?? message.pollCreationMessageV3);
}
