import type { SessionRef } from '../session-ref';

/**
 * Where the driver finds received messages a reply may quote: `received_messages` through
 * ReceivedMessageRepository of @jumbe/persistence (7 days, bounded per session). They are written
 * with the inbound outbox (InboundOutbox.add's `quote`), in the same statement. Values are sealed.
 */
export interface ReceivedMessageStore {
  find(ref: SessionRef, messageId: string): Promise<Buffer | null>;
}
