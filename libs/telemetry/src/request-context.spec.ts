import { InProcessMessageBus } from '@jumbe/messaging';
import Fastify from 'fastify';
import { request } from 'node:http';
import pino from 'pino';
import { ContextCarryingBus } from './context-carrying-bus';
import { instrumentHttp } from './http-instrumentation';
import { currentRequestId, REQUEST_ID_HEADER, requestLogFields, withRequestId } from './request-context';
import { telemetry } from './telemetry';

const quiet = pino({ level: 'silent' });

/** POSTs a JSON body in two parts, 50 ms apart; resolves with the parsed answer. */
function postSlowly(url: string, requestId: string): Promise<unknown> {
  const body = JSON.stringify({ hello: 'slow' });
  return new Promise((resolve, reject) => {
    const sending = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        'x-request-id': requestId,
      },
    });
    sending.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    });
    sending.on('error', reject);
    sending.write(body.slice(0, 5));
    setTimeout(() => sending.end(body.slice(5)), 50);
  });
}

describe('request context', () => {
  it('is the request id of the HTTP request in its handler, after the body was read and awaits', async () => {
    const app = Fastify();
    instrumentHttp(app, telemetry(), quiet);
    app.post('/echo', async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { seen: currentRequestId(), body: request.body };
    });
    try {
      // Over a real socket: the body arrives in its own events, as it does in production.
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const post = (headers: Record<string, string>) =>
        fetch(`${url}/echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ hello: 'world' }),
        });
      const given = await post({ 'x-request-id': 'req-given-1' });
      expect(await given.json()).toEqual({ seen: 'req-given-1', body: { hello: 'world' } });
      const generated = await post({});
      const seen = ((await generated.json()) as { seen: string }).seen;
      expect(seen).toBe(generated.headers.get('x-request-id'));
      expect(seen).toMatch(/^[0-9a-f-]{36}$/);
      // A body that arrives after a pause reaches the handler from another event of the socket.
      expect(await postSlowly(`${url}/echo`, 'req-slow-3')).toEqual({
        seen: 'req-slow-3',
        body: { hello: 'slow' },
      });
    } finally {
      await app.close();
    }
  });

  it('travels with a bus command to its handler, as a header and as the current request id', async () => {
    const bus = new ContextCarryingBus(new InProcessMessageBus());
    const seen: Array<{ current: string | undefined; header: string | undefined }> = [];
    await bus.serve('test.command', async (_payload, message) => {
      seen.push({ current: currentRequestId(), header: message.headers[REQUEST_ID_HEADER] });
      return requestLogFields();
    });
    try {
      const reply = await withRequestId('req-bus-7', () =>
        bus.request('test.command', { type: 'test' }, { timeoutMs: 1_000 }),
      );
      await bus.request('test.command', { type: 'test' }, { timeoutMs: 1_000 });
      expect(reply).toEqual({ requestId: 'req-bus-7' });
      expect(seen).toEqual([
        { current: 'req-bus-7', header: 'req-bus-7' },
        { current: undefined, header: undefined },
      ]);
    } finally {
      await bus.close();
    }
  });
});
