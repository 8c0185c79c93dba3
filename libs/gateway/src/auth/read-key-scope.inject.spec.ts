import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../bootstrap/create-http-app';
import { GatewayModule } from '../gateway.module';
import { MemoryGatewayWorld } from '../test-support/memory-gateway-ports';

// Nest boots per test; on a loaded machine that alone can take seconds.
jest.setTimeout(30_000);

/**
 * CONTRACT §3 through the gateway's guard, in process: a read key reads, and every route that
 * changes something refuses it with 403 `forbidden` before anything changes, whatever the method
 * (the end-to-end twin, in e2e/src/distributed.spec.ts, deletes a webhook through real processes).
 */
describe('a read key through the gateway (memory ports, inject)', () => {
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

  const CHANGES: Array<[method: 'DELETE' | 'PATCH' | 'POST', url: string, body: unknown]> = [
    ['DELETE', '/api/v1/webhook', undefined],
    ['PATCH', '/api/v1/webhook', { enabled: false }],
    ['DELETE', '/api/v1/session', undefined],
    ['POST', '/api/v1/messages/text', { to: '254711111111', text: 'hi' }],
  ];

  it.each(CHANGES)(
    'refuses %s %s with 403 forbidden and leaves the webhook as it was',
    async (method, url, body) => {
      const { accountId, key: fullKey } = world.addCustomer();
      const { key: readKey } = world.addCustomer({ scope: 'read' });
      // The read key is the same account's: only its scope may refuse it.
      const readHash = [...world.keys.entries()].find(([, k]) => k.scope === 'read')!;
      readHash[1].accountId = accountId;
      expect(
        (
          await app.inject({
            method: 'PATCH',
            url: '/api/v1/webhook',
            headers: { 'x-api-key': fullKey, 'content-type': 'application/json' },
            payload: JSON.stringify({ url: 'https://93.184.215.14/hook' }),
          })
        ).statusCode,
      ).toBe(200);
      const before = structuredClone(world.webhooks.get(accountId));

      const response = await app.inject({
        method,
        url,
        headers: {
          'x-api-key': readKey,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ message: expect.any(String), error: { code: 'forbidden' } });
      expect(world.webhooks.get(accountId)).toEqual(before);

      const read = await app.inject({
        method: 'GET',
        url: '/api/v1/webhook',
        headers: { 'x-api-key': readKey },
      });
      expect(read.statusCode).toBe(200);
      expect(read.json().data.url).not.toBeNull();
    },
  );
});
