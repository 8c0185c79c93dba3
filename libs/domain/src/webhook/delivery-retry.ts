/**
 * Automatic redelivery of a failed webhook event, opt-in per account (CONTRACT §11): the spec's
 * default is no retries, so without a setting nothing here ever schedules an attempt.
 */

/** What an account opted into with `PATCH /webhook {"retry": {"attempts": N}}`. */
export interface RetrySetting {
  /** Further attempts after the first one fails (1–10). */
  attempts: number;
}

export const RETRY_ATTEMPTS_MIN = 1;
export const RETRY_ATTEMPTS_MAX = 10;
/** The delay before the first retry; each later one is three times the previous. */
export const DEFAULT_RETRY_BASE_MS = 30_000;
/** No wait between two attempts is longer than this. */
export const RETRY_MAX_DELAY_MS = 6 * 60 * 60 * 1_000;
/** Every attempt starts within this time of the event's creation. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1_000;

/** The wait after failed attempt `attempt` (1 = the first): base·3^(attempt−1), at most 6 h. */
export function retryDelayMs(attempt: number, baseMs: number = DEFAULT_RETRY_BASE_MS): number {
  // Capped before it is computed: 3^k overflows nothing below k = 600, but stays readable.
  const exponent = Math.min(Math.max(attempt, 1) - 1, 40);
  return Math.min(baseMs * 3 ** exponent, RETRY_MAX_DELAY_MS);
}

/** A recorded attempt that failed. */
export interface FailedAttempt {
  /** 1 for the first POST of the event, 2 for the first retry, … */
  attempt: number;
  attemptedAt: Date;
}

export interface NextAttemptQuestion {
  /** The account's current setting (null: no retries). */
  retry: RetrySetting | null;
  failed: FailedAttempt;
  /** When the event was created (its `timestamp`): the 24-hour window starts there. */
  eventCreatedAt: Date;
  baseMs?: number;
}

/**
 * When to make the attempt after `failed`, or null when there is none: retries are off, all of
 * them were made, or the event's 24 hours are over. A wait that would end past the window is
 * cut short so the last attempt is made at its end rather than not at all.
 */
export function nextAttemptAt(question: NextAttemptQuestion): Date | null {
  const { retry, failed } = question;
  if (!retry || failed.attempt > retry.attempts) return null;
  const created = question.eventCreatedAt.getTime();
  const failedAt = failed.attemptedAt.getTime();
  // An event time that cannot be read starts the window at the failure: never an endless window.
  const deadline = (Number.isFinite(created) ? created : failedAt) + RETRY_WINDOW_MS;
  if (failedAt >= deadline) return null;
  return new Date(Math.min(failedAt + retryDelayMs(failed.attempt, question.baseMs), deadline));
}
