import type { InboundNetworkMessage } from '@jumbe/domain';
import type { LinkEvent } from '../../link-event';
import type { MessageStatusReport } from '../../message-status-report';
import type { SessionEvents } from '../../session-events';

/** SessionEvents that remember everything, with a way to wait for what a test expects. */
export class EventRecorder implements SessionEvents {
  readonly links: LinkEvent[] = [];
  readonly inbound: InboundNetworkMessage[] = [];
  readonly statuses: MessageStatusReport[] = [];
  /** Rejects onInbound this many more times (a bus outage). */
  failInbound = 0;
  inboundAttempts = 0;
  /** Runs on each link event, after it is recorded (to act as the worker would). */
  onEvent: ((event: LinkEvent) => void) | null = null;

  onLink(event: LinkEvent): void {
    this.links.push(event);
    this.onEvent?.(event);
  }

  async onInbound(message: InboundNetworkMessage): Promise<void> {
    this.inboundAttempts += 1;
    if (this.failInbound > 0) {
      this.failInbound -= 1;
      throw new Error('event stream unavailable');
    }
    this.inbound.push(message);
  }

  onMessageStatus(report: MessageStatusReport): void {
    this.statuses.push(report);
  }

  types(): string[] {
    return this.links.map((event) =>
      event.type === 'disconnected' ? `disconnected:${event.reason}` : event.type,
    );
  }

  async until(check: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; events: ${this.types().join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  untilEvent(type: string, timeoutMs?: number): Promise<void> {
    return this.until(() => this.types().includes(type), type, timeoutMs);
  }
}
