import { inboundEventSubject, sessionEventId, sessionStatusEvent, type StreamEvent } from '@jumbe/contracts';
import { type LinkFacts, shardOf } from '@jumbe/domain';
import type { EventPublisher } from '@jumbe/messaging';
import type { SessionRef } from '@jumbe/network';

export interface StatusRelayOptions {
  /** Tries to store one event before giving up on it (the stream may be briefly unreachable). */
  tries: number;
  retryDelayMs: number;
}

const DEFAULT_OPTIONS: StatusRelayOptions = { tries: 3, retryDelayMs: 1_000 };

/**
 * Puts what a session reports about itself on the event stream, on its session's subject (so
 * it stays in order with the session's received messages): `session.status` for each recorded
 * state change. Each event's id is derived from the fact it reports, so a retried publish is
 * stored once. The account's webhook receives it only if it subscribed to the type.
 */
export class StatusRelay {
  constructor(
    private readonly events: EventPublisher,
    private readonly options: StatusRelayOptions = DEFAULT_OPTIONS,
  ) {}

  /** A state change the worker recorded at `at`. */
  async sessionChanged(ref: SessionRef, facts: LinkFacts, at: Date): Promise<void> {
    const event = sessionStatusEvent(ref.accountId, ref.sessionId, facts, at);
    if (event === null) return;
    const fact = `${at.getTime()}:${facts.state}:${facts.reason ?? ''}`;
    await this.publish(ref, sessionEventId(ref.accountId, ref.sessionId, event.event, fact), event);
  }

  private async publish(ref: SessionRef, eventId: string, payload: StreamEvent): Promise<void> {
    const shard = shardOf(ref.accountId, ref.sessionId);
    const outgoing = {
      eventId,
      subject: inboundEventSubject(shard, ref.accountId, ref.sessionId),
      shard,
      payload,
    };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.events.publish(outgoing);
      } catch (error) {
        if (attempt >= this.options.tries) throw error;
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs));
      }
    }
  }
}
