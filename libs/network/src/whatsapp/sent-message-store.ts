import type { SessionRef } from '../session-ref';

/**
 * Where the driver keeps what each session sent, so a recipient's retry request can be served
 * after a restart or a hand-over: `sent_messages` through SentMessageRepository of
 * @jumbe/persistence (a day, bounded per session). Values arrive sealed; the store never sees
 * message content.
 */
export interface SentMessageStore {
  /**
   * `chat`: the JID it went to, so a reply quotes it only in that chat. `keepUntil`: kept until
   * then, beyond the day (a poll's creation message, whose secret its votes need).
   */
  save(ref: SessionRef, messageId: string, value: Buffer, chat?: string, keepUntil?: Date): Promise<void>;
  find(ref: SessionRef, messageId: string): Promise<Buffer | null>;
  /** The message with the chat it went to (null for rows stored before chats were kept). */
  findWithChat(ref: SessionRef, messageId: string): Promise<{ value: Buffer; chat: string | null } | null>;
  /** When the message was sent (stored), or null when it is unknown or expired. */
  sentAt(ref: SessionRef, messageId: string): Promise<Date | null>;
}
