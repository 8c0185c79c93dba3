import { InProcessMessageBus } from '@jumbe/messaging';
import pino from 'pino';
import { Writable } from 'node:stream';
import { ContextCarryingBus } from './context-carrying-bus';
import { loggerForMessage, requestIdHeaders, requestIdOfMessage } from './request-id-header';

describe('request id across the bus', () => {
  it('reaches the handler of a command sent with it, and is absent from one sent without', async () => {
    const bus = new ContextCarryingBus(new InProcessMessageBus());
    const seen: Array<string | undefined> = [];
    await bus.serve('test.command', async (_payload, message) => void seen.push(requestIdOfMessage(message)));
    try {
      await bus.request(
        'test.command',
        { type: 'test' },
        { timeoutMs: 1_000, headers: requestIdHeaders('req-7') },
      );
      await bus.request(
        'test.command',
        { type: 'test' },
        { timeoutMs: 1_000, headers: requestIdHeaders(undefined) },
      );
      expect(seen).toEqual(['req-7', undefined]);
    } finally {
      await bus.close();
    }
  });

  it("puts the command's request id on the handler's log lines", () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const logger = pino(sink);
    loggerForMessage(logger, { headers: requestIdHeaders('req-8')! }).info('with');
    loggerForMessage(logger, { headers: {} }).info('without');
    expect(lines.map((line) => [line['msg'], line['requestId']])).toEqual([
      ['with', 'req-8'],
      ['without', undefined],
    ]);
  });
});
