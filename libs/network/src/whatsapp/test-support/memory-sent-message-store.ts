import type { SessionRef } from '../../session-ref';
import type { SentMessageStore } from '../sent-message-store';

/** SentMessageStore in memory, shaped like SentMessageRepository (what survives a driver restart). */
export class MemorySentMessageStore implements SentMessageStore {
  readonly rows = new Map<string, Buffer>();
  readonly times = new Map<string, Date>();
  readonly chats = new Map<string, string>();
  /** The `keepUntil` each message was saved with (polls). */
  readonly keptUntil = new Map<string, Date>();

  async save(
    ref: SessionRef,
    messageId: string,
    value: Buffer,
    chat?: string,
    keepUntil?: Date,
  ): Promise<void> {
    if (keepUntil) this.keptUntil.set(`${ref.accountId}/${ref.sessionId}/${messageId}`, keepUntil);
    this.rows.set(`${ref.accountId}/${ref.sessionId}/${messageId}`, value);
    this.times.set(`${ref.accountId}/${ref.sessionId}/${messageId}`, new Date());
    if (chat) this.chats.set(`${ref.accountId}/${ref.sessionId}/${messageId}`, chat);
  }

  async findWithChat(
    ref: SessionRef,
    messageId: string,
  ): Promise<{ value: Buffer; chat: string | null } | null> {
    const key = `${ref.accountId}/${ref.sessionId}/${messageId}`;
    const value = this.rows.get(key);
    return value ? { value, chat: this.chats.get(key) ?? null } : null;
  }

  async sentAt(ref: SessionRef, messageId: string): Promise<Date | null> {
    return this.times.get(`${ref.accountId}/${ref.sessionId}/${messageId}`) ?? null;
  }

  async find(ref: SessionRef, messageId: string): Promise<Buffer | null> {
    return this.rows.get(`${ref.accountId}/${ref.sessionId}/${messageId}`) ?? null;
  }
}
