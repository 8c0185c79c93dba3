import type { SessionRef } from '../session-ref';

/**
 * Where the driver keeps what each session sent, so a recipient's retry request can be served
 * after a restart or a hand-over: `sent_messages` through SentMessageRepository of
 * @jumbe/persistence (a day, bounded per session). Values arrive sealed; the store never sees
 * message content.
 */
export interface SentMessageStore {
  save(ref: SessionRef, messageId: string, value: Buffer): Promise<void>;
  find(ref: SessionRef, messageId: string): Promise<Buffer | null>;
  /** When the message was sent (stored), or null when it is unknown or expired. */
  sentAt(ref: SessionRef, messageId: string): Promise<Date | null>;
}
