import type { Logger } from 'pino';
import type { LinkEvent } from '../link-event';
import type { SessionEvents } from '../session-events';

/**
 * Tells the session's owner how its link goes (`onLink`: qr, pairing code, connecting, connected,
 * disconnected), and wakes whoever waits for the next such event (a logout waiting for a socket
 * to unlink with).
 */
export class SessionLinkEvents {
  private waiters: (() => void)[] = [];

  constructor(
    private readonly events: SessionEvents,
    private readonly logger: Logger,
  ) {}

  emit(event: LinkEvent): void {
    // A failing listener must not break the connection's bookkeeping (it runs in socket callbacks).
    try {
      this.events.onLink(event);
    } catch (error) {
      this.logger.error({ err: error, event: event.type }, 'onLink listener threw');
    }
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves at the next link event, or after `timeoutMs`. */
  next(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
