import { inboundEventId, inboundEventSubject, inboundMessageEvent, type StreamEvent } from '@jumbe/contracts';
import { type InboundNetworkMessage, shardOf } from '@jumbe/domain';
import type { EventPublisher } from '@jumbe/messaging';
import type { SessionRef } from '@jumbe/network';

/**
 * Turns a received network message into its event (`message.received`, or `message.reaction`,
 * `message.revoked`, `message.edited` for a message that changes an earlier one) and stores it on the
 * durable event stream. The driver acknowledges the network only after this resolves, and the
 * stream drops a second copy of the same message id, so nothing is lost or delivered twice.
 */
export class InboundRelay {
  constructor(private readonly events: EventPublisher) {}

  async relay(ref: SessionRef, message: InboundNetworkMessage): Promise<void> {
    const event = inboundMessageEvent(ref.accountId, ref.sessionId, message, new Date());
    if (event === null) return;
    const shard = shardOf(ref.accountId, ref.sessionId);
    // Only events of the schemas in libs/contracts go on the stream (the dispatcher checks too).
    const payload: StreamEvent = event;
    await this.events.publish({
      eventId: inboundEventId(ref.accountId, ref.sessionId, message.id),
      subject: inboundEventSubject(shard, ref.accountId, ref.sessionId),
      shard,
      payload,
    });
  }
}
