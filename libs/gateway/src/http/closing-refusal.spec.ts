import Fastify, { type FastifyInstance } from 'fastify';
import { Agent, request } from 'undici';
import { installClosingRefusal } from './closing-refusal';

/**
 * A request that reaches a gateway that is closing (after the shutdown delay) on a connection it
 * kept alive: e2e's graceful-shutdown spec saw Fastify's own 503 body on the health route.
 */
describe('installClosingRefusal', () => {
  let app: FastifyInstance;
  let agent: Agent;
  let releaseClose: () => void;
  let closed: Promise<void>;

  beforeAll(async () => {
    app = Fastify({ return503OnClosing: false });
    installClosingRefusal(app);
    // Holds the close after the refusal is on, so requests can still arrive on open connections.
    const held = new Promise<void>((resolve) => (releaseClose = resolve));
    app.addHook('preClose', async () => held);
    app.get('/api/v1/health', async () => ({ status: 'ok', checks: {} }));
    app.get('/api/v1/usage', async () => ({ data: {} }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    agent = new Agent({ connections: 1, keepAliveTimeout: 30_000 });
  });
  afterAll(async () => {
    releaseClose();
    await closed;
    await agent.close();
  });

  const get = async (path: string) => {
    const { port } = app.server.address() as { port: number };
    const response = await request(`http://127.0.0.1:${port}${path}`, { dispatcher: agent });
    return { status: response.statusCode, headers: response.headers, body: await response.body.json() };
  };

  it('serves as usual until the close begins, then answers in the contract shapes and closes the connection', async () => {
    expect(await get('/api/v1/usage')).toMatchObject({ status: 200 });
    closed = app.close();
    await new Promise((resolve) => setImmediate(resolve));

    const health = await get('/api/v1/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'unavailable', checks: { process: 'stopping' } });
    expect(health.headers.connection).toBe('close');

    const usage = await get('/api/v1/usage');
    expect(usage.status).toBe(503);
    expect(usage.body).toEqual({ message: expect.any(String), error: { code: 'unavailable' } });
    expect(usage.headers['retry-after']).toBe('1');
  });
});
