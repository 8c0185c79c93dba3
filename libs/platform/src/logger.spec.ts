import pino from 'pino';
import { createLogger } from './logger';

/** Captures what `createLogger` writes, by pointing pino's destination at memory. */
function capture(run: (logger: pino.Logger) => void): string {
  const lines: string[] = [];
  const logger = createLogger('debug', 'test');
  // pino writes to process.stdout by default; intercept it for the duration of the call.
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    run(logger);
  } finally {
    process.stdout.write = write;
  }
  return lines.join('');
}

describe('createLogger', () => {
  it('never writes a failed query parameters, its quoted values or a URL query', () => {
    const failure = Object.assign(new Error('invalid input syntax for type uuid: "secret-value-1"'), {
      name: 'QueryFailedError',
      query: 'INSERT INTO x VALUES ($1, $2)',
      parameters: ['hello private text', 'https://hooks.example/in?token=tok_secret_2'],
      detail: 'Key (name)=(secret-name-3) already exists.',
      driverError: { detail: 'secret-name-3' },
    });
    const output = capture((logger) => {
      logger.error({ err: failure, url: 'https://hooks.example/in?token=tok_secret_4' }, 'request failed');
      logger.warn('posting to https://hooks.example/in?token=tok_secret_5');
      logger.info({ to: '254722000001', text: 'hello private text', key: 'jk_live_6' }, 'sent');
    });
    for (const secret of [
      'secret-value-1',
      'hello private text',
      'tok_secret',
      'secret-name-3',
      '254722000001',
      'jk_live_6',
    ]) {
      expect(output).not.toContain(secret);
    }
    expect(output).toContain('QueryFailedError');
    expect(output).toContain('https://hooks.example/in?[redacted]');
  });
});
