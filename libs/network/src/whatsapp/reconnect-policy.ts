import { backoffDelay } from './backoff';
import { type CloseDecision, isRefusal } from './disconnect-policy';

export interface ReconnectSettings {
  /** Transient drops: first backoff ceiling and cap. */
  reconnectBaseMs: number;
  reconnectMaxMs: number;
  /** Refusals (WhatsApp said no for now): first backoff ceiling and cap. */
  refusalBackoffBaseMs: number;
  refusalBackoffMaxMs: number;
  /** A connection open this long is stable: a restart request after it reconnects at once again. */
  stableConnectionMs: number;
  random: () => number;
}

/**
 * When one session opens its next socket after a close (disconnect-policy.ts decides whether).
 * - A transient drop backs off 1 s doubling to a minute (the defaults), with jitter.
 * - A refusal (405, 500, unknown stream errors, 503, ...) backs off longer (5 s doubling to 40 s by
 *   default): during a WhatsApp incident every session keeps trying, spread out, instead of ending,
 *   and is back within the cap once the incident is over.
 * - A restart request (515) reconnects at once, but only the first in a row: a server that keeps
 *   asking (a 515 right after every login) would otherwise have the session reconnect in a tight
 *   loop, and every such loop takes a turn of the driver's launch queue from the other sessions'
 *   reconnects. Later ones back off like a transient drop until a connection stays up.
 */
export class ReconnectPolicy {
  /** Closes since the last open (the backoff step). */
  private attempts = 0;
  /** Restart requests since the last stable connection. */
  private restarts = 0;
  private openedAt = Number.NEGATIVE_INFINITY;
  /** Refusals in a row since the last open, the latest included. */
  private refusalsInARow = 0;

  constructor(
    private readonly settings: ReconnectSettings,
    private readonly now: () => number = Date.now,
  ) {}

  get attempt(): number {
    return this.attempts;
  }

  get refusals(): number {
    return this.refusalsInARow;
  }

  opened(): void {
    this.attempts = 0;
    this.refusalsInARow = 0;
    this.openedAt = this.now();
  }

  /** Counts a close before it is decided on (refusals in a row feed the decision). */
  closed(statusCode: number | undefined): void {
    this.refusalsInARow = isRefusal(statusCode) ? this.refusalsInARow + 1 : 0;
  }

  /** The wait before the next socket after `decision` (0: at once, still in the launch queue's turn). */
  delayAfter(decision: Exclude<CloseDecision, { action: 'end' }>): number {
    const { settings } = this;
    if (decision.action === 'reconnect_now') {
      if (this.now() - this.openedAt >= settings.stableConnectionMs) this.restarts = 0;
      this.restarts += 1;
      if (this.restarts === 1) return 0;
      // Counted by restarts, not attempts: a looping server may let every socket open first.
      return backoffDelay(this.restarts - 2, {
        baseMs: settings.reconnectBaseMs,
        maxMs: settings.reconnectMaxMs,
        random: settings.random,
      });
    }
    return decision.refused
      ? this.step(settings.refusalBackoffBaseMs, settings.refusalBackoffMaxMs)
      : this.step(settings.reconnectBaseMs, settings.reconnectMaxMs);
  }

  private step(baseMs: number, maxMs: number): number {
    const delay = backoffDelay(this.attempts, { baseMs, maxMs, random: this.settings.random });
    this.attempts += 1;
    return delay;
  }
}
