import { eventually as sharedEventually } from '@jumbe/testing';
import type { InboundNetworkMessage } from '@jumbe/domain';
import type { LinkEvent } from '../../link-event';
import type { MessageStatusReport } from '../../message-status-report';
import type { SessionEvents } from '../../session-events';

/**
 * Test-only: the SessionEvents a worker would pass to `open`, recording everything it is told.
 * `failNextInbound(n)` makes the next n deliveries reject, as a worker whose event stream is down.
 */
export class SessionRecorder implements SessionEvents {
  readonly links: LinkEvent[] = [];
  readonly inbound: InboundNetworkMessage[] = [];
  readonly statuses: MessageStatusReport[] = [];
  private failuresLeft = 0;
  deliveryAttempts = 0;

  onLink(event: LinkEvent): void {
    this.links.push(event);
  }

  async onInbound(message: InboundNetworkMessage): Promise<void> {
    this.deliveryAttempts += 1;
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      throw new Error('event stream unavailable');
    }
    this.inbound.push(message);
  }

  onMessageStatus(report: MessageStatusReport): void {
    this.statuses.push(report);
  }

  failNextInbound(count: number): void {
    this.failuresLeft = count;
  }

  linkTypes(): string[] {
    return this.links.map((event) => event.type);
  }

  last(): LinkEvent | undefined {
    return this.links[this.links.length - 1];
  }

  async waitForLink<T extends LinkEvent['type']>(
    type: T,
    timeoutMs = 3_000,
  ): Promise<Extract<LinkEvent, { type: T }>> {
    let found: LinkEvent | undefined;
    await eventually(
      `link event ${type}`,
      () => (found = this.links.find((event) => event.type === type)) !== undefined,
      timeoutMs,
    );
    return found as Extract<LinkEvent, { type: T }>;
  }

  async waitForInbound(count: number, timeoutMs = 3_000): Promise<InboundNetworkMessage[]> {
    await eventually(`${count} inbound messages`, () => this.inbound.length >= count, timeoutMs);
    return this.inbound;
  }
}

export { delay } from '@jumbe/testing';

/** The shared wait (libs/testing), with a 3 s default for the sandbox's in-process network. */
export const eventually = (what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 3_000) =>
  sharedEventually(what, condition, timeoutMs);
