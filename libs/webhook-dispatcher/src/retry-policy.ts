import type { LastAttempt } from '@jumbe/contracts';
import { DEFAULT_RETRY_BASE_MS, nextAttemptAt, type RetrySetting } from '@jumbe/domain';

/** What to do next with a stream event, given its latest recorded attempt. */
export type NextStep =
  /** POST it: attempt 1, or the retry now due. */
  | { kind: 'post'; attempt: number }
  /** Its last attempt failed and a retry is due at `until`: the session waits for it. */
  | { kind: 'wait'; until: Date }
  /** Nothing more to send (delivered, or no retry left): record what there is and acknowledge it. */
  | { kind: 'done' };

/** The webhook as this policy needs it: the account's current retry setting (null: none). */
export interface RetryTarget {
  retry: RetrySetting | null;
}

/**
 * The dispatcher's reading of the opt-in retry schedule (`@jumbe/domain`): decided from what is
 * recorded, never from memory, so a dispatcher that takes an event over after a crash or a shard
 * move goes on where the last one stopped (the attempt recorded is not made again, the backoff
 * left is waited out). The setting is read each time, so turning retries off ends the waiting.
 */
export class RetryPolicy {
  constructor(
    private readonly baseMs: number = DEFAULT_RETRY_BASE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  nextStep(last: LastAttempt | null, webhook: RetryTarget, eventTimestamp: string): NextStep {
    if (!last) return { kind: 'post', attempt: 1 };
    if (last.status === 'success') return { kind: 'done' };
    const at = this.retryAt(last, webhook, eventTimestamp);
    if (!at) return { kind: 'done' };
    return at.getTime() > this.now()
      ? { kind: 'wait', until: at }
      : { kind: 'post', attempt: last.attempt + 1 };
  }

  /** When to retry after `failed`, or null when no retry is left. */
  retryAt(
    failed: Pick<LastAttempt, 'attempt' | 'attemptedAt'>,
    webhook: RetryTarget,
    eventTimestamp: string,
  ): Date | null {
    return nextAttemptAt({
      retry: webhook.retry,
      failed,
      eventCreatedAt: new Date(eventTimestamp),
      baseMs: this.baseMs,
    });
  }
}
