import type { SessionRef } from '../../session-ref';
import type { SentMessageStore } from '../sent-message-store';

/** SentMessageStore in memory, shaped like SentMessageRepository (what survives a driver restart). */
export class MemorySentMessageStore implements SentMessageStore {
  readonly rows = new Map<string, Buffer>();
  readonly times = new Map<string, Date>();

  async save(ref: SessionRef, messageId: string, value: Buffer): Promise<void> {
    this.rows.set(`${ref.accountId}/${ref.sessionId}/${messageId}`, value);
    this.times.set(`${ref.accountId}/${ref.sessionId}/${messageId}`, new Date());
  }

  async sentAt(ref: SessionRef, messageId: string): Promise<Date | null> {
    return this.times.get(`${ref.accountId}/${ref.sessionId}/${messageId}`) ?? null;
  }

  async find(ref: SessionRef, messageId: string): Promise<Buffer | null> {
    return this.rows.get(`${ref.accountId}/${ref.sessionId}/${messageId}`) ?? null;
  }
}
