import pino from 'pino';
import { createLogger } from './logger';

/** Captures what `createLogger` writes, by giving it a stand-in for stdout. */
function capture(run: (logger: pino.Logger) => void): string {
  const lines: string[] = [];
  const logger = createLogger('debug', 'test', { write: (chunk: string) => (lines.push(chunk), true) });
  run(logger);
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

  it("censors sensitive fields at any depth and in a child logger's fields", () => {
    const output = capture((logger) => {
      logger.info({ command: { payload: { message: { text: 'deep private text' } } } }, 'nested');
      logger.info({ attempts: [{ to: '254722000009' }] }, 'in a list');
      logger.child({ phoneNumber: '254722000008' }).info('from a child');
    });
    for (const secret of ['deep private text', '254722000009', '254722000008']) {
      expect(output).not.toContain(secret);
    }
    expect(output.match(/\[redacted\]/g)).toHaveLength(3);
  });

  describe('output', () => {
    /** A stand-in for stdout: a terminal or not. */
    const output = (isTTY: boolean) => {
      const written: string[] = [];
      return { isTTY, written, write: (chunk: string) => (written.push(chunk), true) };
    };

    it('writes one JSON object per line when stdout is not a terminal', () => {
      const pipe = output(false);
      createLogger('info', 'gateway', pipe).info({ route: '/api/v1/usage' }, 'request completed');
      expect(JSON.parse(pipe.written.join(''))).toMatchObject({
        level: 30,
        service: 'gateway',
        route: '/api/v1/usage',
        msg: 'request completed',
      });
    });

    it('writes readable lines on a terminal, still redacted, each one whole at once', () => {
      const terminal = output(true);
      const logger = createLogger('info', 'gateway', terminal);
      logger.info({ route: '/api/v1/usage', key: 'jk_live_secret' }, 'request completed');
      logger.debug('below the level');
      expect(terminal.written).toHaveLength(1);
      const [line] = terminal.written as [string];
      // eslint-disable-next-line no-control-regex -- colour codes, removed to read the text
      const text = line.replace(/\u001b\[\d+m/g, '');
      expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed\n/);
      // One process is one service: a person at its terminal need not read that on every line.
      expect(text).not.toContain('service');
      expect(text).toContain('route: "/api/v1/usage"');
      expect(text).not.toContain('jk_live_secret');
      expect(() => JSON.parse(line)).toThrow();
    });
  });
});
