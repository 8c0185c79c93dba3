import 'reflect-metadata';
import { ACCESS_INVALIDATION_TOPIC, encodeAccessInvalidation } from '@jumbe/contracts';
import { MemoryInvalidationBus } from '@jumbe/coordination';
import { billingCycleAt, ZERO_USAGE } from '@jumbe/domain';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../bootstrap/create-http-app';
import { GatewayModule } from '../gateway.module';
import type { GatewayPorts } from '../ports/gateway-ports';
import { MemoryGatewayWorld } from '../test-support/memory-gateway-ports';

// Nest boots per test; on a loaded machine that alone can take seconds.
jest.setTimeout(30_000);

/**
 * What a customer's request is told about its limits (CONTRACT §2, §3), through the gateway's
 * guard in process: the X-Quota-* headers on every authenticated answer, refusals included, the
 * monthly cap (402), a suspended account (403, nothing counted) and the per-key rate (429).
 */
describe("a customer's limits through the gateway (memory ports, inject)", () => {
  let world: MemoryGatewayWorld;
  let invalidations: MemoryInvalidationBus;
  let app: NestFastifyApplication;
  /** Counters PostgreSQL holds for an account's current cycle, before the gateway counts any. */
  const saved = new Map<string, { apiHits: number; messagesSent: number; sendFailures: number }>();

  async function boot(overrides: (ports: GatewayPorts) => Partial<GatewayPorts> = () => ({})) {
    const base = world.ports();
    const ports = world.ports({
      invalidations,
      usageLedger: {
        load: async (accountId) => saved.get(accountId) ?? ZERO_USAGE,
        saveManyAtLeast: base.usageLedger.saveManyAtLeast,
      },
      ...overrides(base),
    });
    app = await createHttpApp(GatewayModule.register(ports), ports);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  }

  beforeEach(() => {
    world = new MemoryGatewayWorld();
    invalidations = new MemoryInvalidationBus();
    saved.clear();
  });

  afterEach(async () => {
    await app.close();
  });

  const get = (url: string, key: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const quotaOf = (response: { headers: Record<string, unknown> }) => ({
    limit: response.headers['x-quota-limit'],
    remaining: response.headers['x-quota-remaining'],
    reset: response.headers['x-quota-reset'],
  });
  const cycleEnd = () => billingCycleAt(new Date()).end.toISOString();

  it('tells each counted request its plan limit, the hits left and when the cycle resets', async () => {
    await boot();
    const { key } = world.addCustomer({ monthlyApiHits: 3 });

    const first = await get('/api/v1/usage', key);
    const second = await get('/api/v1/usage', key);

    expect(first.statusCode).toBe(200);
    expect(quotaOf(first)).toEqual({ limit: '3', remaining: '2', reset: cycleEnd() });
    expect(quotaOf(second)).toEqual({ limit: '3', remaining: '1', reset: cycleEnd() });
    expect(second.json().data).toMatchObject({ apiHits: 2, periodEnd: cycleEnd() });
  });

  it('refuses the hit past the cap with 402, naming the limit, the plan and the reset, 0 left', async () => {
    await boot();
    const { key } = world.addCustomer({ monthlyApiHits: 2 });
    for (let i = 0; i < 2; i++) expect((await get('/api/v1/usage', key)).statusCode).toBe(200);

    const refused = await get('/api/v1/usage', key);

    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toEqual({
      message: `Monthly API hit limit of 2 reached on plan "test". Upgrade the plan or wait for the next billing cycle (${cycleEnd()}).`,
      error: { code: 'monthly_limit_reached' },
    });
    expect(quotaOf(refused)).toEqual({ limit: '2', remaining: '0', reset: cycleEnd() });
  });

  it('refuses a suspended account with 403 and its quota position, counting nothing', async () => {
    await boot();
    const { accountId, key } = world.addCustomer({ monthlyApiHits: 10, suspended: true });
    saved.set(accountId, { apiHits: 7, messagesSent: 0, sendFailures: 0 });

    const refused = await get('/api/v1/usage', key);
    const again = await get('/api/v1/usage', key);

    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      message: 'This account is suspended. Contact the operator of this Jumbe.',
      error: { code: 'account_suspended' },
    });
    expect(quotaOf(refused)).toEqual({ limit: '10', remaining: '3', reset: cycleEnd() });
    expect(quotaOf(again).remaining).toBe('3');

    // Lifted, the account continues from the 7 hits: the refused requests were not counted.
    world.accounts.get(accountId)!.account.suspended = false;
    await invalidations.publish(
      ACCESS_INVALIDATION_TOPIC,
      encodeAccessInvalidation({ v: 1, kind: 'account', accountId }),
    );
    const lifted = await get('/api/v1/usage', key);
    expect(lifted.statusCode).toBe(200);
    expect(lifted.json().data.apiHits).toBe(8);
  });

  it('shows a suspended account over its cap 0 hits left, never a negative count', async () => {
    await boot();
    const { accountId, key } = world.addCustomer({ monthlyApiHits: 5, suspended: true });
    saved.set(accountId, { apiHits: 9, messagesSent: 0, sendFailures: 0 });

    const refused = await get('/api/v1/usage', key);

    expect(refused.statusCode).toBe(403);
    expect(quotaOf(refused).remaining).toBe('0');
  });

  it('limits each key to the configured requests a minute with 429 and Retry-After; other keys go on', async () => {
    await boot((base) => ({ config: { ...base.config, rateLimitPerMinute: 2 } }));
    const limited = world.addCustomer();
    const other = world.addCustomer();
    for (let i = 0; i < 2; i++) expect((await get('/api/v1/usage', limited.key)).statusCode).toBe(200);

    const refused = await get('/api/v1/usage', limited.key);

    expect(refused.statusCode).toBe(429);
    const seconds = Number(refused.headers['retry-after']);
    expect(seconds).toBeGreaterThanOrEqual(55);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(refused.json()).toEqual({
      message: `Too many requests: this key may make 2 per minute. Retry in ${seconds} s.`,
      error: { code: 'rate_limited' },
    });
    // The hit was counted before the rate refused it (CONTRACT §2: 402 comes before 429).
    expect(quotaOf(refused).remaining).toBe('997');
    expect((await get('/api/v1/usage', other.key)).statusCode).toBe(200);
  });

  it('answers 503 naming the coordination store, with Retry-After, when the key rate cannot be counted', async () => {
    await boot((base) => ({
      config: { ...base.config, rateLimitPerMinute: 2 },
      rateLimiter: {
        consume: async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
        },
      },
    }));
    const { key } = world.addCustomer();

    const refused = await get('/api/v1/usage', key);

    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.json()).toEqual({
      message: 'Service temporarily unavailable (coordination store unreachable). Retry shortly.',
      error: { code: 'unavailable' },
    });
  });

  it('refuses a read key the write with 403 naming its scope and the method', async () => {
    await boot();
    const { key } = world.addCustomer({ scope: 'read' });

    const refused = await app.inject({
      method: 'DELETE',
      url: '/api/v1/webhook',
      headers: { 'x-api-key': key },
    });

    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe(
      'This key has the "read" scope, which cannot call DELETE routes. Use a key with the "full" scope.',
    );
    expect(quotaOf(refused).remaining).toBe('999');
  });
});
