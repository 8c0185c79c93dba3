import 'reflect-metadata';
import { replyError, replyOk } from '@jumbe/contracts';
import { hashApiKey, shardOf, shardSubject } from '@jumbe/domain';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../bootstrap/create-http-app';
import { GatewayModule } from '../gateway.module';
import { MemoryGatewayWorld } from '../test-support/memory-gateway-ports';
import { DASHBOARD_REQUESTS_PER_MINUTE, DASHBOARD_SESSIONS_PER_ACCOUNT } from './dashboard-sessions';

// Nest boots per test; on a loaded machine that alone can take seconds.
jest.setTimeout(30_000);

/**
 * Dashboard sessions (CONTRACT §11): a key signs in once; the token's requests act with the key's
 * account and scope, are not API hits, and are limited per session; the session ends at sign-out,
 * with its key, and after 12 hours.
 */
describe('dashboard sessions through the gateway (memory ports, inject)', () => {
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

  const signIn = (key: string) =>
    app.inject({ method: 'POST', url: '/api/v1/dashboard/sessions', headers: { 'x-api-key': key } });
  async function tokenOf(key: string): Promise<string> {
    const response = await signIn(key);
    expect(response.statusCode).toBe(201);
    return response.json().data.token as string;
  }
  const withToken = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    token: string,
    body?: unknown,
  ) =>
    app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const withKey = (url: string, key: string) =>
    app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  /** The account's usage as its dashboard sees it (which itself counts nothing). */
  const usageOf = async (token: string) => (await withToken('GET', '/api/v1/usage', token)).json().data;

  it('signs in with a key, uncounted, to a token of its scope that expires in 12 hours', async () => {
    const { key } = world.addCustomer();
    const before = Date.now();
    const response = await signIn(key);
    expect(response.statusCode).toBe(201);
    const { token, expiresAt, scope } = response.json().data;
    expect(token).toMatch(/^jds_[A-Za-z0-9_-]{43}$/);
    expect(scope).toBe('full');
    const lifetime = Date.parse(expiresAt) - before;
    expect(lifetime).toBeGreaterThan(12 * 3_600_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(12 * 3_600_000 + 60_000);
    // Only the token's hash is kept.
    expect(JSON.stringify([...world.dashboardSessions.sessions.entries()])).not.toContain(token);
    expect((await usageOf(token)).apiHits).toBe(0);
  });

  it("leaves apiHits unchanged for the dashboard's reads and writes, while the same calls with the key count", async () => {
    const { key } = world.addCustomer();
    const token = await tokenOf(key);
    for (const url of ['/api/v1/sessions', '/api/v1/webhook', '/api/v1/messages/failures', '/api/v1/usage']) {
      const read = await withToken('GET', url, token);
      expect(read.statusCode).toBe(200);
      expect(read.headers['x-quota-remaining']).toBe('1000');
    }
    const write = await withToken('PATCH', '/api/v1/webhook', token, { url: 'https://93.184.215.14/hook' });
    expect(write.statusCode).toBe(200);
    expect((await usageOf(token)).apiHits).toBe(0);

    const counted = await withKey('/api/v1/sessions', key);
    expect(counted.statusCode).toBe(200);
    expect(counted.headers['x-quota-remaining']).toBe('999');
    expect((await usageOf(token)).apiHits).toBe(1);
    // The quota headers of the dashboard's requests show where the account stands.
    expect((await withToken('GET', '/api/v1/sessions', token)).headers['x-quota-remaining']).toBe('999');
  });

  it("counts the dashboard's sends as messages sent, and logs its failed sends like any", async () => {
    const { accountId, key } = world.addCustomer();
    const token = await tokenOf(key);
    let answer = replyOk({ key: { remoteJid: '254711111111@s.whatsapp.net', fromMe: true, id: 'M1' } });
    await world.bus.serve(shardSubject(shardOf(accountId, 'default')), async () => answer);
    const sent = await withToken('POST', '/api/v1/messages/text', token, { to: '254711111111', text: 'hi' });
    expect(sent.statusCode).toBe(200);
    answer = replyError('session_not_connected', 'Session "default" is not connected.');
    const failed = await withToken('POST', '/api/v1/messages/text', token, {
      to: '254711111111',
      text: 'hi',
    });
    expect(failed.statusCode).toBe(409);
    expect(world.failures.map((failure) => failure.code)).toEqual(['session_not_connected']);
    expect(await usageOf(token)).toMatchObject({ apiHits: 0, messagesSent: 1, sendFailures: 1 });
  });

  it("lets a read key's token read but not write (403 forbidden)", async () => {
    const { key } = world.addCustomer({ scope: 'read' });
    const response = await signIn(key);
    expect(response.json().data.scope).toBe('read');
    const token = response.json().data.token as string;
    expect((await withToken('GET', '/api/v1/sessions', token)).statusCode).toBe(200);
    const write = await withToken('POST', '/api/v1/messages/text', token, { to: '254711111111', text: 'hi' });
    expect(write.statusCode).toBe(403);
    expect(write.json().error.code).toBe('forbidden');
  });

  it('refuses the token at once after sign-out, its expiry, or its key revoked (401)', async () => {
    const { key } = world.addCustomer();
    const signedOut = await tokenOf(key);
    const out = await withToken('DELETE', '/api/v1/dashboard/sessions/current', signedOut);
    expect(out.statusCode).toBe(200);
    expect(out.json().data).toEqual({ signedOut: true });
    const afterSignOut = await withToken('GET', '/api/v1/sessions', signedOut);
    expect(afterSignOut.statusCode).toBe(401);
    expect(afterSignOut.json().error.code).toBe('unauthorized');

    const expired = await tokenOf(key);
    for (const session of world.dashboardSessions.sessions.values())
      session.expiresAt = new Date(Date.now() - 1);
    expect((await withToken('GET', '/api/v1/sessions', expired)).statusCode).toBe(401);

    const revoked = await tokenOf(key);
    expect((await withToken('GET', '/api/v1/sessions', revoked)).statusCode).toBe(200);
    world.keys.delete(hashApiKey(key));
    expect((await withToken('GET', '/api/v1/sessions', revoked)).statusCode).toBe(401);
  });

  it('refuses sign-out with an API key (400), and sign-in with a token or a bad key (401)', async () => {
    const { key } = world.addCustomer();
    const token = await tokenOf(key);
    const byKey = await app.inject({
      method: 'DELETE',
      url: '/api/v1/dashboard/sessions/current',
      headers: { 'x-api-key': key },
    });
    expect(byKey.statusCode).toBe(400);
    const byToken = await app.inject({
      method: 'POST',
      url: '/api/v1/dashboard/sessions',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(byToken.statusCode).toBe(401);
    expect((await signIn('jmb_' + 'x'.repeat(43))).statusCode).toBe(401);
    expect((await withToken('GET', '/api/v1/sessions', 'jds_' + 'x'.repeat(43))).statusCode).toBe(401);
  });

  it(`refuses a session's request beyond ${DASHBOARD_REQUESTS_PER_MINUTE} a minute with 429, another session unaffected`, async () => {
    const { key } = world.addCustomer();
    const token = await tokenOf(key);
    for (let i = 0; i < DASHBOARD_REQUESTS_PER_MINUTE; i += 1) {
      expect((await withToken('GET', '/api/v1/sessions', token)).statusCode).toBe(200);
    }
    const beyond = await withToken('GET', '/api/v1/sessions', token);
    expect(beyond.statusCode).toBe(429);
    expect(beyond.json().error.code).toBe('rate_limited');
    expect(Number(beyond.headers['retry-after'])).toBeGreaterThan(0);
    expect((await withToken('GET', '/api/v1/sessions', await tokenOf(key))).statusCode).toBe(200);
  });

  it(`keeps ${DASHBOARD_SESSIONS_PER_ACCOUNT} live sessions per account: a sign-in beyond ends the oldest`, async () => {
    const { accountId, key } = world.addCustomer();
    const { key: second } = world.addCustomer();
    // The second key is the same account's: the cap is the account's, whichever key signs in.
    const secondKey = world.keys.get(hashApiKey(second));
    if (secondKey === undefined) throw new Error('the second key was not stored');
    secondKey.accountId = accountId;
    const oldest = await tokenOf(key);
    for (let i = 1; i < DASHBOARD_SESSIONS_PER_ACCOUNT; i += 1) await tokenOf(i % 2 === 0 ? key : second);
    expect((await withToken('GET', '/api/v1/usage', oldest)).statusCode).toBe(200);
    // Sign-ins are limited too (10 a minute per key), so the next one comes from a fresh key.
    const { key: third } = world.addCustomer();
    const thirdKey = world.keys.get(hashApiKey(third));
    if (thirdKey === undefined) throw new Error('the third key was not stored');
    thirdKey.accountId = accountId;
    await tokenOf(third);
    expect((await withToken('GET', '/api/v1/usage', oldest)).statusCode).toBe(401);
  });
});
