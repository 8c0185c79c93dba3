import 'reflect-metadata';
import { type CommandReply, replyError } from '@jumbe/contracts';
import { shardOf, shardSubject, WebhookVault } from '@jumbe/domain';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from './bootstrap/create-http-app';
import { GatewayModule } from './gateway.module';
import { MemoryGatewayWorld } from './test-support/memory-gateway-ports';

/**
 * The gateway's HTTP layer in process, on memory ports and Fastify's inject(): guards, the error
 * envelope and each controller's error paths, fast. The end-to-end suites run the same routes
 * against real processes, PostgreSQL, NATS and Redis.
 */
describe('the gateway in process (memory ports, inject)', () => {
  let world: MemoryGatewayWorld;
  let app: NestFastifyApplication;

  beforeEach(async () => {
    world = new MemoryGatewayWorld();
    const ports = world.ports();
    app = await createHttpApp(GatewayModule.register(ports), ports);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterEach(async () => {
    await app.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, key?: string, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: {
        ...(key ? { 'x-api-key': key } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });

  /** Answers the default session's commands as its worker would. */
  const workerAnswers = async (accountId: string, reply: CommandReply) => {
    await world.bus.serve(shardSubject(shardOf(accountId, 'default')), async () => reply);
  };

  describe('customer authentication and limits', () => {
    it('refuses a missing, malformed or unknown key with 401 in the error envelope', async () => {
      for (const key of [undefined, 'not-a-key', 'jmb_' + 'x'.repeat(40)]) {
        const response = await call('GET', '/api/v1/usage', key);
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ message: expect.any(String), error: { code: 'unauthorized' } });
      }
    });

    it('refuses a suspended account with 403 account_suspended', async () => {
      const { key } = world.addCustomer({ suspended: true });
      const response = await call('GET', '/api/v1/usage', key);
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('account_suspended');
    });

    it('lets a read-only key read but not send (403 forbidden)', async () => {
      const { key } = world.addCustomer({ scope: 'read' });
      expect((await call('GET', '/api/v1/usage', key)).statusCode).toBe(200);
      const response = await call('POST', '/api/v1/messages/text', key, { to: '254711111111', text: 'hi' });
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('forbidden');
    });

    it('answers 402 monthly_limit_reached once the plan’s hits are used', async () => {
      const { key } = world.addCustomer({ monthlyApiHits: 1 });
      expect((await call('GET', '/api/v1/usage', key)).statusCode).toBe(200);
      const response = await call('GET', '/api/v1/usage', key);
      expect(response.statusCode).toBe(402);
      expect(response.json().error.code).toBe('monthly_limit_reached');
    });

    it('refuses a wrong admin token with 401 before any admin operation runs', async () => {
      const response = await app.inject({
        method: 'GET',
        url: '/api/v1/admin/plans',
        headers: { authorization: 'Bearer wrong-token' },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('unauthorized');
    });
  });

  describe('the error envelope', () => {
    it('answers bad JSON with 400 invalid_json and a non-JSON body with 415', async () => {
      const { key } = world.addCustomer();
      const bad = await call('POST', '/api/v1/messages/text', key, '{"to":');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('invalid_json');
      const plain = await app.inject({
        method: 'POST',
        url: '/api/v1/messages/text',
        headers: { 'x-api-key': key, 'content-type': 'text/plain' },
        payload: 'hello',
      });
      expect(plain.statusCode).toBe(415);
      expect(plain.json().error.code).toBe('unsupported_media_type');
    });

    it('answers an unknown route with 404 not_found in the envelope', async () => {
      const response = await call('GET', '/api/v1/nowhere');
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({
        message: expect.stringContaining('No route'),
        error: { code: 'not_found' },
      });
    });
  });

  describe('sends', () => {
    it('refuses an invalid body with validation details, and logs the failed send', async () => {
      const { accountId, key } = world.addCustomer();
      const response = await call('POST', '/api/v1/messages/text', key, { text: 'no recipient' });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: '/to' }] });
      expect(world.failures).toEqual([
        expect.objectContaining({ accountId, code: 'validation_error', type: 'text' }),
      ]);
    });

    it('passes on the worker’s session_not_connected and logs that failed send exactly once', async () => {
      const { accountId, key } = world.addCustomer();
      await workerAnswers(
        accountId,
        replyError('session_not_connected', 'Session "default" is not connected.'),
      );
      const response = await call('POST', '/api/v1/messages/text', key, { to: '254711111111', text: 'hi' });
      expect(response.statusCode).toBe(409);
      expect(response.json().error.code).toBe('session_not_connected');
      expect(world.failures).toEqual([
        expect.objectContaining({
          accountId,
          sessionId: 'default',
          to: '254711111111',
          type: 'text',
          code: 'session_not_connected',
        }),
      ]);
    });

    it('answers 503 with Retry-After when no worker owns the session, and logs the failed send', async () => {
      const { key } = world.addCustomer();
      const response = await call('POST', '/api/v1/messages/text', key, { to: '254711111111', text: 'hi' });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBeDefined();
      expect(world.failures.map((failure) => failure.code)).toEqual(['unavailable']);
    });
  });

  describe('sessions and webhooks', () => {
    it('lists only the calling account’s sessions', async () => {
      const a = world.addCustomer();
      const b = world.addCustomer();
      for (const accountId of [a.accountId, b.accountId]) {
        world.sessions.push({
          accountId,
          sessionId: 'default',
          shard: 0,
          state: 'connected',
          phoneNumber: '254700000001',
          reason: null,
          ownerToken: 1,
          updatedAt: new Date(),
        });
      }
      const response = await call('GET', '/api/v1/sessions', a.key);
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toHaveLength(1);
    });

    /** `count` sessions `s000`, `s001`, … of the account, stored in no particular order. */
    function storeSessions(accountId: string, count: number) {
      const ids = Array.from({ length: count }, (_, i) => `s${String(i).padStart(3, '0')}`).reverse();
      for (const sessionId of ids) {
        world.sessions.push({
          accountId,
          sessionId,
          shard: 0,
          state: 'starting',
          phoneNumber: null,
          reason: null,
          ownerToken: 1,
          updatedAt: new Date(),
        });
      }
    }

    it('lists every session as the spec says, { data } and nothing else, when no page is asked for', async () => {
      const a = world.addCustomer();
      storeSessions(a.accountId, 250);
      const response = await call('GET', '/api/v1/sessions', a.key);
      expect(response.statusCode).toBe(200);
      expect(Object.keys(response.json())).toEqual(['data']);
      expect(response.json().data).toHaveLength(250);
    });

    it('pages the sessions in session id order with limit and cursor, nextCursor null on the last page', async () => {
      const a = world.addCustomer();
      const b = world.addCustomer();
      storeSessions(a.accountId, 5);
      storeSessions(b.accountId, 5);
      const first = await call('GET', '/api/v1/sessions?limit=2', a.key);
      expect(first.statusCode).toBe(200);
      expect(first.json().data.map((s: { sessionId: string }) => s.sessionId)).toEqual(['s000', 's001']);
      expect(first.json().nextCursor).toEqual(expect.any(String));
      const second = await call('GET', `/api/v1/sessions?limit=2&cursor=${first.json().nextCursor}`, a.key);
      expect(second.json().data.map((s: { sessionId: string }) => s.sessionId)).toEqual(['s002', 's003']);
      const last = await call('GET', `/api/v1/sessions?limit=2&cursor=${second.json().nextCursor}`, a.key);
      expect(last.json()).toEqual({
        data: [expect.objectContaining({ sessionId: 's004' })],
        nextCursor: null,
      });
      // A cursor alone pages by the default size; an exact fit ends with nextCursor null too.
      const rest = await call('GET', '/api/v1/sessions?cursor=s001', a.key);
      expect(rest.json().data).toHaveLength(3);
      expect(rest.json().nextCursor).toBeNull();
      expect((await call('GET', '/api/v1/sessions?limit=5', a.key)).json().nextCursor).toBeNull();
    });

    it('refuses a bad page request with 400 and the field at fault in details', async () => {
      const { key } = world.addCustomer();
      for (const [query, path] of [
        ['limit=0', '/limit'],
        ['limit=1001', '/limit'],
        ['limit=2.5', '/limit'],
        ['limit=ten', '/limit'],
        ['limit=', '/limit'],
        ['limit=1&limit=2', '/limit'],
        ['cursor=', '/cursor'],
        ['cursor=not%20a%20cursor', '/cursor'],
        [`cursor=${'x'.repeat(65)}`, '/cursor'],
        ['page=2', '/page'],
      ] as const) {
        const response = await call('GET', `/api/v1/sessions?${query}`, key);
        expect({ query, status: response.statusCode }).toEqual({ query, status: 400 });
        expect(response.json().error).toMatchObject({
          code: 'validation_error',
          details: [expect.objectContaining({ path })],
        });
      }
    });

    it('refuses a webhook URL on a private network with 400 invalid_webhook_url', async () => {
      const { key } = world.addCustomer();
      const response = await call('PATCH', '/api/v1/webhook', key, { url: 'http://127.0.0.1:9/hook' });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({
        code: 'invalid_webhook_url',
        details: [{ path: '/url' }],
      });
    });

    it('subscribes to event types: message.received by default, unknown names refused with the known ones', async () => {
      const { key } = world.addCustomer();
      const saved = await call('PATCH', '/api/v1/webhook', key, { url: 'https://93.184.216.34/hook' });
      expect(saved.statusCode).toBe(200);
      expect(saved.json().data.events).toEqual(['message.received']);
      const chosen = await call('PATCH', '/api/v1/webhook', key, {
        events: ['session.status', 'message.received', 'session.status'],
      });
      expect(chosen.json().data.events).toEqual(['session.status', 'message.received']);
      expect((await call('GET', '/api/v1/webhook', key)).json().data.events).toEqual([
        'session.status',
        'message.received',
      ]);

      const unknown = await call('PATCH', '/api/v1/webhook', key, { events: ['message.received', 'nope'] });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().error).toEqual({
        code: 'validation_error',
        details: [{ path: '/events/1', problem: expect.stringContaining('known events: message.received') }],
      });
      expect(unknown.json().error.details[0].problem).toContain('session.status');
      expect((await call('GET', '/api/v1/webhook', key)).json().data.events).toEqual([
        'session.status',
        'message.received',
      ]);
    });

    it('retries nothing by default; retry {attempts: 1..10} is opt-in, kept by other saves, null turns it off', async () => {
      const { key } = world.addCustomer();
      const saved = await call('PATCH', '/api/v1/webhook', key, { url: 'https://93.184.216.34/hook' });
      expect(saved.json().data.retry).toBeNull();
      expect((await call('GET', '/api/v1/webhook', key)).json().data.retry).toBeNull();

      const opted = await call('PATCH', '/api/v1/webhook', key, { retry: { attempts: 3 } });
      expect(opted.json().data.retry).toEqual({ attempts: 3 });
      await call('PATCH', '/api/v1/webhook', key, { enabled: true });
      expect((await call('GET', '/api/v1/webhook', key)).json().data.retry).toEqual({ attempts: 3 });

      for (const [retry, path] of [
        [{ attempts: 0 }, '/retry/attempts'],
        [{ attempts: 11 }, '/retry/attempts'],
        [{ attempts: 2.5 }, '/retry/attempts'],
        [{ attempts: '3' }, '/retry/attempts'],
        [{}, '/retry/attempts'],
        [{ attempts: 3, backoff: 'fast' }, '/retry/backoff'],
        [3, '/retry'],
      ] as const) {
        const refused = await call('PATCH', '/api/v1/webhook', key, { retry });
        expect({ retry, status: refused.statusCode }).toEqual({ retry, status: 400 });
        expect(refused.json().error).toMatchObject({
          code: 'validation_error',
          details: [expect.objectContaining({ path })],
        });
      }
      expect((await call('GET', '/api/v1/webhook', key)).json().data.retry).toEqual({ attempts: 3 });

      const off = await call('PATCH', '/api/v1/webhook', key, { retry: null });
      expect(off.json().data.retry).toBeNull();
      expect((await call('GET', '/api/v1/webhook', key)).json().data.retry).toBeNull();
    });

    describe('a webhook URL with credentials', () => {
      // A public address literal: checked without DNS.
      const tokened = 'https://93.184.216.34/in?token=tok_s3cr3t&v=2';
      const masked = 'https://93.184.216.34/in?token=****&v=****';
      const fullUrlOf = (accountId: string) =>
        new WebhookVault('0'.repeat(64)).openUrl(world.webhooks.get(accountId)!);

      it('is stored sealed and shown masked in the PATCH answer and GET /webhook', async () => {
        const { accountId, key } = world.addCustomer();
        const saved = await call('PATCH', '/api/v1/webhook', key, { url: tokened });
        expect(saved.statusCode).toBe(200);
        expect(saved.json().data.url).toBe(masked);
        const read = await call('GET', '/api/v1/webhook', key);
        expect(read.json().data.url).toBe(masked);
        expect(read.body).not.toContain('tok_s3cr3t');
        expect(JSON.stringify(world.webhooks.get(accountId))).not.toContain('tok_s3cr3t');
        expect(fullUrlOf(accountId)).toBe(tokened);
      });

      it('keeps the full URL when a form sends the masked one back, or none', async () => {
        const { accountId, key } = world.addCustomer();
        await call('PATCH', '/api/v1/webhook', key, { url: tokened });
        const toggled = await call('PATCH', '/api/v1/webhook', key, { url: masked, enabled: false });
        expect(toggled.json().data).toEqual({
          url: masked,
          enabled: false,
          hasSecret: true,
          events: ['message.received'],
          retry: null,
        });
        expect(fullUrlOf(accountId)).toBe(tokened);
        await call('PATCH', '/api/v1/webhook', key, { enabled: true });
        expect(fullUrlOf(accountId)).toBe(tokened);
        await call('PATCH', '/api/v1/webhook', key, { url: 'https://93.184.216.34/in?token=new' });
        expect(fullUrlOf(accountId)).toBe('https://93.184.216.34/in?token=new');
      });

      it('is shown masked when stored in clear before URLs were sealed, and sealed on the next save', async () => {
        const { accountId, key } = world.addCustomer();
        world.webhooks.set(accountId, {
          accountId,
          url: tokened,
          urlCiphertext: null,
          enabled: true,
          secretCiphertext: null,
          events: ['message.received'],
          retryAttempts: null,
          updatedAt: new Date(),
        });
        expect((await call('GET', '/api/v1/webhook', key)).json().data.url).toBe(masked);
        await call('PATCH', '/api/v1/webhook', key, { enabled: false });
        expect(world.webhooks.get(accountId)).toMatchObject({
          url: masked,
          urlCiphertext: expect.any(String),
        });
        expect(fullUrlOf(accountId)).toBe(tokened);
      });
    });

    it('answers POST /webhook/test with 503 when no dispatcher answers', async () => {
      const { key } = world.addCustomer();
      const response = await call('POST', '/api/v1/webhook/test', key, {});
      expect(response.statusCode).toBe(503);
      expect(response.json().error.code).toBe('unavailable');
    });
  });
});
