import 'reflect-metadata';
import type { OperatorService } from '@jumbe/operator';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../bootstrap/create-http-app';
import { GatewayModule } from '../gateway.module';
import { MemoryGatewayWorld } from '../test-support/memory-gateway-ports';
import { DASHBOARD_REQUESTS_PER_MINUTE } from './dashboard-sessions';

// Nest boots per test; on a loaded machine that alone can take seconds.
jest.setTimeout(30_000);

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

/**
 * The operator's dashboard sessions (CONTRACT §11): the admin token is sent once, for a token that
 * works on the admin routes only, at a human's pace, until sign-out, 12 hours, or a new admin token.
 */
describe("the operator's dashboard sessions (memory ports, inject)", () => {
  let world: MemoryGatewayWorld;
  const apps: NestFastifyApplication[] = [];

  /** A gateway of `world`; the admin routes' listing of plans answers an empty list. */
  async function gateway(adminToken = ADMIN_TOKEN): Promise<NestFastifyApplication> {
    const base = world.ports();
    const ports = world.ports({
      config: { ...base.config, adminToken },
      operator: { listPlans: async () => [] } as unknown as OperatorService,
    });
    const app = await createHttpApp(GatewayModule.register(ports), ports);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    apps.push(app);
    return app;
  }

  beforeEach(() => {
    world = new MemoryGatewayWorld();
  });

  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  const bearer = (
    app: NestFastifyApplication,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    token: string,
  ) => app.inject({ method, url, headers: { authorization: `Bearer ${token}` } });
  async function signIn(app: NestFastifyApplication): Promise<string> {
    const response = await bearer(app, 'POST', '/api/v1/admin/dashboard-sessions', ADMIN_TOKEN);
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ scope: 'admin', expiresAt: expect.any(String) });
    return response.json().data.token as string;
  }

  it('signs in with the admin token to a token for the admin routes only, ended by sign-out', async () => {
    const app = await gateway();
    const token = await signIn(app);
    expect(token).toMatch(/^jds_/);
    expect(JSON.stringify([...world.operatorSessions.sessions.entries()])).not.toContain(token);
    expect((await bearer(app, 'GET', '/api/v1/admin/plans', token)).statusCode).toBe(200);
    // Not a customer's token, and no way to mint more tokens.
    expect((await bearer(app, 'GET', '/api/v1/usage', token)).statusCode).toBe(401);
    expect((await bearer(app, 'POST', '/api/v1/admin/dashboard-sessions', token)).statusCode).toBe(400);

    const out = await bearer(app, 'DELETE', '/api/v1/admin/dashboard-sessions/current', token);
    expect(out.statusCode).toBe(200);
    const after = await bearer(app, 'GET', '/api/v1/admin/plans', token);
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('unauthorized');
  });

  it("refuses a customer's dashboard token, a wrong admin token at sign-in, and an expired session", async () => {
    const app = await gateway();
    const { key } = world.addCustomer();
    const customer = await app.inject({
      method: 'POST',
      url: '/api/v1/dashboard/sessions',
      headers: { 'x-api-key': key },
    });
    const customerToken = customer.json().data.token as string;
    expect((await bearer(app, 'GET', '/api/v1/admin/plans', customerToken)).statusCode).toBe(401);
    expect((await bearer(app, 'POST', '/api/v1/admin/dashboard-sessions', 'wrong-token')).statusCode).toBe(
      401,
    );

    const token = await signIn(app);
    for (const session of world.operatorSessions.sessions.values())
      session.expiresAt = new Date(Date.now() - 1);
    expect((await bearer(app, 'GET', '/api/v1/admin/plans', token)).statusCode).toBe(401);
  });

  it('ends every operator session when the admin token changes, on every gateway', async () => {
    const token = await signIn(await gateway());
    const restarted = await gateway('a-new-admin-token-0123456789abcdef');
    expect((await bearer(restarted, 'GET', '/api/v1/admin/plans', token)).statusCode).toBe(401);
  });

  it(`refuses a session's request beyond ${DASHBOARD_REQUESTS_PER_MINUTE} a minute with 429`, async () => {
    const app = await gateway();
    const token = await signIn(app);
    for (let i = 0; i < DASHBOARD_REQUESTS_PER_MINUTE; i += 1) {
      expect((await bearer(app, 'GET', '/api/v1/admin/plans', token)).statusCode).toBe(200);
    }
    const beyond = await bearer(app, 'GET', '/api/v1/admin/plans', token);
    expect(beyond.statusCode).toBe(429);
    expect(beyond.json().error.code).toBe('rate_limited');
    // The admin token itself is not limited so.
    expect((await bearer(app, 'GET', '/api/v1/admin/plans', ADMIN_TOKEN)).statusCode).toBe(200);
  });
});
