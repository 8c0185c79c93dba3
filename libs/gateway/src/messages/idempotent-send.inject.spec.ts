import 'reflect-metadata';
import { type CommandReply, replyError, replyOk } from '@jumbe/contracts';
import { shardOf, shardSubject } from '@jumbe/domain';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../bootstrap/create-http-app';
import { GatewayModule } from '../gateway.module';
import { MemoryGatewayWorld } from '../test-support/memory-gateway-ports';

/**
 * Idempotency-Key on sends (CONTRACT §5), in process: the gateway's own request hashing on an
 * in-memory store with the PostgreSQL store's rules, so a hash that ignored the body, the kind or
 * the account would send twice or replay another request's answer here, not only end to end.
 */
// Nest boots per test; on a loaded machine that alone can take seconds.
jest.setTimeout(30_000);

describe('idempotent sends (memory ports, inject)', () => {
  let world: MemoryGatewayWorld;
  let app: NestFastifyApplication;
  /** The send commands the worker received, in order. */
  let sent: unknown[];

  beforeEach(async () => {
    world = new MemoryGatewayWorld();
    sent = [];
    const ports = world.ports();
    app = await createHttpApp(GatewayModule.register(ports), ports);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterEach(async () => {
    await app.close();
  });

  /** The default session's worker: answers each send with `reply(n)` for the n-th send (from 1). */
  const workerAnswers = async (accountId: string, reply: (n: number) => CommandReply) => {
    await world.bus.serve(shardSubject(shardOf(accountId, 'default')), async (command) => {
      sent.push(command);
      return reply(sent.length);
    });
  };
  const sentOk = (n: number) =>
    replyOk({ key: { remoteJid: '254711111111@s.whatsapp.net', fromMe: true, id: `M${n}` } });

  const send = (key: string, idempotencyKey: string, body: unknown, kind = 'text') =>
    app.inject({
      method: 'POST',
      url: `/api/v1/messages/${kind}`,
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      payload: JSON.stringify(body),
    });

  it('replays the first answer for the same key and body, and sends once', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, sentOk);
    const first = await send(key, 'order-1', { to: '254711111111', text: 'hi' });
    const again = await send(key, 'order-1', { to: '254711111111', text: 'hi' });
    expect(first.statusCode).toBe(200);
    expect(first.json().data.key.id).toBe('M1');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(sent).toHaveLength(1);
  });

  it('refuses the same key with a different body with 409 idempotency_conflict, sending nothing', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, sentOk);
    expect((await send(key, 'order-1', { to: '254711111111', text: 'hi' })).statusCode).toBe(200);
    for (const body of [
      { to: '254711111111', text: 'hi!' },
      { to: '254722222222', text: 'hi' },
    ]) {
      const conflict = await send(key, 'order-1', body);
      expect(conflict.statusCode).toBe(409);
      expect(conflict.json()).toEqual({
        message: expect.stringContaining('different request body'),
        error: { code: 'idempotency_conflict' },
      });
    }
    expect(sent).toHaveLength(1);
    // A refused conflict is the client's mistake about its key, not a failed send.
    expect(world.failures).toEqual([]);
  });

  it('refuses a key reused for another kind of message, keeping the first request’s record', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, sentOk);
    const reaction = { to: '254711111111', messageId: 'ABC', emoji: '👍' };
    expect((await send(key, 'k', reaction, 'reaction')).statusCode).toBe(200);
    const hash = world.idempotency.hashOf(accountId, 'k');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    // Every refused duplicate below keeps the first request's record.
    const other = await send(key, 'k', { to: '254711111111', text: 'hi' });
    expect(other.statusCode).toBe(409);
    expect(world.idempotency.hashOf(accountId, 'k')).toBe(hash);
    expect(sent).toHaveLength(1);
  });

  it('keeps keys per account: another account’s same key and body is a new send', async () => {
    const a = world.addCustomer();
    const b = world.addCustomer();
    await workerAnswers(a.accountId, sentOk);
    await workerAnswers(b.accountId, sentOk);
    const body = { to: '254711111111', text: 'hi' };
    expect((await send(a.key, 'same', body)).statusCode).toBe(200);
    const second = await send(b.key, 'same', body);
    expect(second.statusCode).toBe(200);
    expect(sent).toHaveLength(2);
    expect(sent.map((command) => (command as { accountId: string }).accountId)).toEqual([
      a.accountId,
      b.accountId,
    ]);
  });

  it('frees the key when the send fails, so a retry with the same key sends', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, (n) =>
      n === 1 ? replyError('session_not_connected', 'Session "default" is not connected.') : sentOk(n),
    );
    const body = { to: '254711111111', text: 'hi' };
    expect((await send(key, 'retry-me', body)).statusCode).toBe(409);
    const retry = await send(key, 'retry-me', body);
    expect(retry.statusCode).toBe(200);
    expect(retry.json().data.key.id).toBe('M2');
    expect(sent).toHaveLength(2);
  });

  it('tells the worker the same send id on every try of one key and body, another for another key', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, (n) =>
      n === 1 ? replyError('timeout', 'The worker did not answer in time.') : sentOk(n),
    );
    const body = { to: '254711111111', text: 'hi' };
    expect((await send(key, 'lost-answer', body)).statusCode).toBe(504);
    expect((await send(key, 'lost-answer', body)).statusCode).toBe(200);
    expect((await send(key, 'another-key', body)).statusCode).toBe(200);
    const ids = sent.map((command) => (command as { sendId?: string }).sendId);
    expect(ids[0]).toEqual(expect.any(String));
    // The worker answers the retry with what it sent the first time (SendReplays), not a 2nd message.
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it('answers a retry of a timed-out try that cannot reach a worker 504 (still unknown), not 503 (not sent)', async () => {
    // The fault schedule's seed 6: the first try left as NATS went down (504); its retry found no
    // worker (503 "retry shortly", which reads as not sent) though the message had reached the contact.
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, (n) =>
      n === 1
        ? replyError('timeout', 'The worker did not answer in time.')
        : n === 2
          ? replyError('unavailable', 'The worker could not complete the command.')
          : sentOk(1),
    );
    const body = { to: '254711111111', text: 'hi' };
    expect((await send(key, 'caught-by-outage', body)).statusCode).toBe(504);
    const retry = await send(key, 'caught-by-outage', body);
    expect(retry.statusCode).toBe(504);
    expect(retry.json().error.code).toBe('timeout');
    expect(retry.json().message).toMatch(/may have been sent/);
    // Still unknown, so still retryable under the key: the worker that made it answers with its key.
    const last = await send(key, 'caught-by-outage', body);
    expect(last.statusCode).toBe(200);
    expect(last.json().data.key.id).toBe('M1');
    // A try that failed for sure after that gives the key up: the next try is an ordinary one.
    expect((await send(key, 'caught-by-outage', { ...body, text: 'other' })).statusCode).toBe(409);
  });

  it('answers a sent message 200 even when its replay cannot be stored (PostgreSQL went down after the send)', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, sentOk);
    world.idempotency.complete = () =>
      Promise.reject(Object.assign(new Error('down'), { code: 'ECONNREFUSED' }));
    const body = { to: '254711111111', text: 'hi' };
    const answer = await send(key, 'db-down-after-send', body);
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data.key.id).toBe('M1');
    // Not sent twice: the key is still held, so a retry under it is refused, not sent.
    expect((await send(key, 'db-down-after-send', body)).statusCode).toBe(409);
    expect(sent).toHaveLength(1);
  });

  it('answers 503 as before when the key had no unknown try: nothing was sent', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, (n) =>
      n === 1 ? replyError('unavailable', 'The worker could not complete the command.') : sentOk(n),
    );
    const body = { to: '254711111111', text: 'hi' };
    expect((await send(key, 'plain-503', body)).statusCode).toBe(503);
    expect((await send(key, 'plain-503', body)).statusCode).toBe(200);
  });

  it('sends no send id without an Idempotency-Key: each request is its own send', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, sentOk);
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/messages/text',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ to: '254711111111', text: 'hi' }),
    });
    expect(response.statusCode).toBe(200);
    expect(sent[0]).not.toHaveProperty('sendId');
  });
});
