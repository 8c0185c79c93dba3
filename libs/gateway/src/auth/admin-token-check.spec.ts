import { ApiError } from '@jumbe/contracts';
import pino from 'pino';
import { ADMIN_FAILURE_WINDOW_MS, ADMIN_FAILURES_PER_WINDOW, AdminTokenCheck } from './admin-token-check';

const TOKEN = 'admin-token-0123456789';

function errorOf(run: () => void): ApiError | null {
  try {
    run();
    return null;
  } catch (error) {
    return error as ApiError;
  }
}

describe('AdminTokenCheck', () => {
  let now = 1_000_000;
  const check = () => new AdminTokenCheck(TOKEN, pino({ level: 'silent' }), () => now);

  it('accepts the token and refuses anything else with 401', () => {
    const subject = check();
    expect(errorOf(() => subject.verify(`Bearer ${TOKEN}`, '10.0.0.1'))).toBeNull();
    for (const header of [undefined, '', 'Bearer', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      expect(errorOf(() => subject.verify(header, '10.0.0.2'))?.code).toBe('unauthorized');
    }
  });

  it('refuses an address with 429 and Retry-After after too many failures, even with the right token, until the window ends', () => {
    const subject = check();
    for (let attempt = 0; attempt < ADMIN_FAILURES_PER_WINDOW; attempt++) {
      expect(errorOf(() => subject.verify('Bearer wrong', '10.0.0.3'))?.code).toBe('unauthorized');
    }
    const limited = errorOf(() => subject.verify(`Bearer ${TOKEN}`, '10.0.0.3'));
    expect(limited?.code).toBe('rate_limited');
    expect(Number(limited?.headers['Retry-After'])).toBe(ADMIN_FAILURE_WINDOW_MS / 1000);
    // Another address is not affected.
    expect(errorOf(() => subject.verify(`Bearer ${TOKEN}`, '10.0.0.4'))).toBeNull();
    now += ADMIN_FAILURE_WINDOW_MS;
    expect(errorOf(() => subject.verify(`Bearer ${TOKEN}`, '10.0.0.3'))).toBeNull();
  });

  it('answers 404 when the admin API is off', () => {
    const subject = new AdminTokenCheck(null, pino({ level: 'silent' }));
    expect(errorOf(() => subject.verify(`Bearer ${TOKEN}`, '10.0.0.1'))?.code).toBe('not_found');
  });
});
