import { nextAttemptAt, RETRY_WINDOW_MS, retryDelayMs } from './delivery-retry';

const S = 1_000;
const H = 3_600 * S;

describe('retryDelayMs', () => {
  it('waits 30 s after the first failure, three times longer after each next one, never over 6 h', () => {
    const schedule = Array.from({ length: 10 }, (_, index) => retryDelayMs(index + 1));
    expect(schedule).toEqual([
      30 * S,
      90 * S,
      270 * S,
      810 * S,
      2_430 * S,
      7_290 * S,
      6 * H,
      6 * H,
      6 * H,
      6 * H,
    ]);
  });

  it('scales with the configured base (tests run it in milliseconds)', () => {
    expect([1, 2, 3].map((attempt) => retryDelayMs(attempt, 100))).toEqual([100, 300, 900]);
  });
});

describe('nextAttemptAt', () => {
  const created = new Date('2030-01-01T12:00:00.000Z');
  const at = (ms: number) => new Date(created.getTime() + ms);

  it('schedules nothing without the opt-in: the spec says no retries', () => {
    expect(
      nextAttemptAt({ retry: null, failed: { attempt: 1, attemptedAt: created }, eventCreatedAt: created }),
    ).toBeNull();
  });

  it('schedules the next attempt after the backoff of the one that failed', () => {
    const retry = { attempts: 3 };
    expect(
      nextAttemptAt({ retry, failed: { attempt: 1, attemptedAt: at(5 * S) }, eventCreatedAt: created }),
    ).toEqual(at(35 * S));
    expect(
      nextAttemptAt({ retry, failed: { attempt: 3, attemptedAt: at(H) }, eventCreatedAt: created }),
    ).toEqual(at(H + 270 * S));
  });

  it('makes N retries, so N + 1 attempts in all, and no more', () => {
    const retry = { attempts: 2 };
    expect(
      nextAttemptAt({ retry, failed: { attempt: 2, attemptedAt: created }, eventCreatedAt: created }),
    ).not.toBeNull();
    expect(
      nextAttemptAt({ retry, failed: { attempt: 3, attemptedAt: created }, eventCreatedAt: created }),
    ).toBeNull();
  });

  it('starts every attempt within 24 h of the event: the last wait is cut short, none after the end', () => {
    const retry = { attempts: 10 };
    expect(
      nextAttemptAt({ retry, failed: { attempt: 9, attemptedAt: at(21 * H) }, eventCreatedAt: created }),
    ).toEqual(at(RETRY_WINDOW_MS));
    expect(
      nextAttemptAt({
        retry,
        failed: { attempt: 10, attemptedAt: at(RETRY_WINDOW_MS) },
        eventCreatedAt: created,
      }),
    ).toBeNull();
    // An event first attempted after its 24 hours (a long outage) is not retried at all.
    expect(
      nextAttemptAt({ retry, failed: { attempt: 1, attemptedAt: at(25 * H) }, eventCreatedAt: created }),
    ).toBeNull();
  });

  it('with the default base and 10 retries, a receiver down all day gets all 11 attempts, the last at the 24th hour', () => {
    const retry = { attempts: 10 };
    const attempts = [created];
    for (let attempt = 1; ; attempt += 1) {
      const next = nextAttemptAt({
        retry,
        failed: { attempt, attemptedAt: attempts.at(-1)! },
        eventCreatedAt: created,
      });
      if (!next) break;
      attempts.push(next);
    }
    expect(attempts).toHaveLength(11);
    expect(attempts.at(-1)).toEqual(at(RETRY_WINDOW_MS));
  });

  it('reads an unreadable event time as the failure time, so the window still ends', () => {
    const failedAt = at(0);
    const next = nextAttemptAt({
      retry: { attempts: 10 },
      failed: { attempt: 10, attemptedAt: failedAt },
      eventCreatedAt: new Date('not a date'),
    });
    expect(next).toEqual(at(6 * H));
  });
});
