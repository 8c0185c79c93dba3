import type { InboundNetworkMessage } from '@jumbe/domain';
import type { LinkEvent } from './link-event';

/** What a driver reports about one open session, to whoever opened it. */
export interface SessionEvents {
  onLink(event: LinkEvent): void;
  /**
   * Resolve only when the message is durably recorded; the driver acknowledges the network after.
   * Reject → the driver must redeliver it later (the sandbox keeps it pending and retries every
   * second), so a crash between receiving and recording never loses a message.
   */
  onInbound(message: InboundNetworkMessage): Promise<void>;
}
