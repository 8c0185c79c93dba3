import { inboundEventId, inboundEventSubject } from '@jumbe/contracts';
import { type InboundNetworkMessage, normaliseInbound } from '@jumbe/domain';
import type { EventPublisher } from '@jumbe/messaging';
import type { SessionRef } from '@jumbe/network';

/**
 * Turns a received network message into the `message.received` event and stores it on the
 * durable event stream. The driver acknowledges the network only after this resolves, and the
 * stream drops a second copy of the same message id, so nothing is lost or delivered twice.
 */
export class InboundRelay {
  constructor(private readonly events: EventPublisher) {}

  async relay(ref: SessionRef, message: InboundNetworkMessage): Promise<void> {
    const event = normaliseInbound(ref.accountId, ref.sessionId, message, new Date());
    if (event === null) return;
    await this.events.publish(
      inboundEventSubject(ref.accountId, ref.sessionId),
      inboundEventId(ref.accountId, ref.sessionId, message.id),
      event,
    );
  }
}
