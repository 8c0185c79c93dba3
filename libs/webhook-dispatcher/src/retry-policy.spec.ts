import { RetryPolicy } from './retry-policy';

describe('RetryPolicy', () => {
  const created = '2030-01-01T12:00:00.000Z';
  const t = (ms: number) => new Date(Date.parse(created) + ms);
  let now = Date.parse(created);
  const policy = new RetryPolicy(1_000, () => now);
  const failed = (attempt: number, atMs: number) => ({
    attempt,
    status: 'failed' as const,
    attemptedAt: t(atMs),
  });

  it('posts attempt 1 of an event never attempted, whatever the setting', () => {
    expect(policy.nextStep(null, { retry: null }, created)).toEqual({ kind: 'post', attempt: 1 });
  });

  it('is done with a delivered event, and with a failed one when retries are off (the spec)', () => {
    const delivered = { attempt: 2, status: 'success' as const, attemptedAt: t(0) };
    expect(policy.nextStep(delivered, { retry: { attempts: 5 } }, created)).toEqual({ kind: 'done' });
    expect(policy.nextStep(failed(1, 0), { retry: null }, created)).toEqual({ kind: 'done' });
  });

  it('waits out the backoff left after a failure, then posts the next attempt', () => {
    const retry = { attempts: 3 };
    now = Date.parse(created) + 500;
    expect(policy.nextStep(failed(1, 0), { retry }, created)).toEqual({ kind: 'wait', until: t(1_000) });
    now = Date.parse(created) + 1_000;
    expect(policy.nextStep(failed(1, 0), { retry }, created)).toEqual({ kind: 'post', attempt: 2 });
    now = Date.parse(created) + 2_000;
    expect(policy.nextStep(failed(2, 1_000), { retry }, created)).toEqual({ kind: 'wait', until: t(4_000) });
  });

  it('is done once every retry was made', () => {
    now = Date.parse(created) + 60_000;
    expect(policy.nextStep(failed(3, 0), { retry: { attempts: 2 } }, created)).toEqual({ kind: 'done' });
  });
});
