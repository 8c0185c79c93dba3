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
      const refused = errorOf(() => subject.verify(header, '10.0.0.2'));
      expect(refused?.code).toBe('unauthorized');
      // The operator's fix, said in the refusal.
      expect(refused?.message).toBe(
        'Missing or invalid admin token. Send "Authorization: Bearer <JUMBE_ADMIN_TOKEN>".',
      );
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

  it('reads the token after "Bearer" in any case, with any spaces around it', () => {
    const subject = check();
    for (const header of [`bearer ${TOKEN}`, `BEARER   ${TOKEN}`, `Bearer ${TOKEN}  `, `Bearer\t${TOKEN}`]) {
      expect(errorOf(() => subject.verify(header, '10.0.1.1'))).toBeNull();
    }
    for (const header of [`x Bearer ${TOKEN}`, `Bearer ${TOKEN} extra`, `Bearer${TOKEN}`, `Bearer  `]) {
      expect(errorOf(() => subject.verify(header, '10.0.1.2'))?.code).toBe('unauthorized');
    }
  });

  it('tells a blocked address how many seconds of its window are left, at least 1', () => {
    const subject = check();
    const started = now;
    for (let attempt = 0; attempt < ADMIN_FAILURES_PER_WINDOW; attempt++) {
      errorOf(() => subject.verify('Bearer wrong', '10.0.2.1'));
    }
    now = started + 20_400;
    const limited = errorOf(() => subject.verify(`Bearer ${TOKEN}`, '10.0.2.1'));
    expect(limited?.status).toBe(429);
    expect(limited?.headers['Retry-After']).toBe('40');
    expect(limited?.message).toBe('Too many failed admin token attempts from this address. Retry in 40 s.');
    now = started + ADMIN_FAILURE_WINDOW_MS - 1;
    expect(errorOf(() => subject.verify(`Bearer ${TOKEN}`, '10.0.2.1'))?.headers['Retry-After']).toBe('1');
  });

  it('warns with the address and its failures so far at each refused token', () => {
    const warnings: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    const subject = new AdminTokenCheck(TOKEN, logger, () => now);
    errorOf(() => subject.verify('Bearer wrong', '10.0.3.1'));
    errorOf(() => subject.verify(undefined, '10.0.3.1'));
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'admin token refused',
        clientAddress: '10.0.3.1',
        failures: 1,
      }),
      expect.objectContaining({
        level: 40,
        msg: 'admin token refused',
        clientAddress: '10.0.3.1',
        failures: 2,
      }),
    ]);
  });

  it('answers 404 when the admin API is off', () => {
    const subject = new AdminTokenCheck(null, pino({ level: 'silent' }));
    const off = errorOf(() => subject.verify(`Bearer ${TOKEN}`, '10.0.0.1'));
    expect(off?.code).toBe('not_found');
    expect(off?.message).toBe(
      'The admin API is off: set JUMBE_ADMIN_TOKEN to enable it, or use the `npx jumbe` CLI.',
    );
  });
});
