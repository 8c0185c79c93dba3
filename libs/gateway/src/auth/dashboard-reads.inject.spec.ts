import 'reflect-metadata';
import { hashApiKey } from '@jumbe/domain';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../bootstrap/create-http-app';
import { GatewayModule } from '../gateway.module';
import { MemoryGatewayWorld } from '../test-support/memory-gateway-ports';
import { DASHBOARD_READS_PER_MINUTE } from './dashboard-read';

// Nest boots per test; on a loaded machine that alone can take seconds.
jest.setTimeout(30_000);

/**
 * The dashboard's reads are dashboard operations, outside the API: not API hits (CONTRACT §11 as
 * amended for issue 31). The header that marks them must buy nothing else: no write, no other
 * route, no more than the allowance a minute.
 */
describe('dashboard reads through the gateway (memory ports, inject)', () => {
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

  const DASHBOARD = { 'x-jumbe-dashboard': '1' };
  const get = (url: string, key: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } });
  /** `apiHits` as a dashboard read sees it (which itself does not count). */
  const apiHits = async (key: string): Promise<number> =>
    (await get('/api/v1/usage', key, DASHBOARD)).json().data.apiHits;

  it('leaves apiHits unchanged for dashboard reads, while the same reads without the header count', async () => {
    const { key } = world.addCustomer();
    for (const url of ['/api/v1/sessions', '/api/v1/webhook', '/api/v1/messages/failures', '/api/v1/usage']) {
      const read = await get(url, key, DASHBOARD);
      expect(read.statusCode).toBe(200);
      expect(read.headers['x-jumbe-dashboard']).toBe('uncounted');
      expect(read.headers['x-quota-remaining']).toBe('1000');
    }
    expect(await apiHits(key)).toBe(0);

    const counted = await get('/api/v1/sessions', key);
    expect(counted.statusCode).toBe(200);
    expect(counted.headers['x-jumbe-dashboard']).toBeUndefined();
    expect(counted.headers['x-quota-remaining']).toBe('999');
    expect(await apiHits(key)).toBe(1);
  });

  it('counts a write that carries the header, and a read of a route the dashboard does not show', async () => {
    const { key } = world.addCustomer();
    const write = await app.inject({
      method: 'PATCH',
      url: '/api/v1/webhook',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...DASHBOARD },
      payload: JSON.stringify({ url: 'https://93.184.215.14/hook' }),
    });
    expect(write.statusCode).toBe(200);
    expect(write.headers['x-jumbe-dashboard']).toBeUndefined();
    expect(await apiHits(key)).toBe(1);

    const refusedWrite = await app.inject({
      method: 'POST',
      url: '/api/v1/messages/text',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...DASHBOARD },
      payload: JSON.stringify({ to: 'nobody', text: 'hi' }),
    });
    expect(refusedWrite.statusCode).toBe(400);
    expect(await apiHits(key)).toBe(2);

    await get('/api/v1/contacts/check?phoneNumber=254711111111', key, DASHBOARD);
    expect(await apiHits(key)).toBe(3);
  });

  it(`counts the reads past ${DASHBOARD_READS_PER_MINUTE} a minute of one account, whichever key makes them`, async () => {
    const { accountId, key } = world.addCustomer();
    const { key: second } = world.addCustomer();
    // The second key is the same account's: the allowance is the account's, not the key's.
    const secondKey = world.keys.get(hashApiKey(second));
    if (secondKey === undefined) throw new Error('the second key was not stored');
    secondKey.accountId = accountId;
    for (let i = 0; i < DASHBOARD_READS_PER_MINUTE; i += 1) {
      const read = await get('/api/v1/sessions', i % 2 === 0 ? key : second, DASHBOARD);
      expect(read.headers['x-jumbe-dashboard']).toBe('uncounted');
    }
    const beyond = await get('/api/v1/sessions', second, DASHBOARD);
    expect(beyond.statusCode).toBe(200);
    expect(beyond.headers['x-jumbe-dashboard']).toBeUndefined();
    expect(beyond.headers['x-quota-remaining']).toBe('999');
  });

  it('still shows an account at its cap where it stands, while every counted call is refused 402', async () => {
    const { key } = world.addCustomer({ monthlyApiHits: 1 });
    expect((await get('/api/v1/sessions', key)).statusCode).toBe(200);
    const capped = await get('/api/v1/sessions', key);
    expect(capped.statusCode).toBe(402);
    expect(capped.json().error.code).toBe('monthly_limit_reached');
    const usage = await get('/api/v1/usage', key, DASHBOARD);
    expect(usage.statusCode).toBe(200);
    expect(usage.json().data).toMatchObject({ apiHits: 1, apiHitLimit: 1 });
    expect(usage.headers['x-quota-remaining']).toBe('0');
  });
});
