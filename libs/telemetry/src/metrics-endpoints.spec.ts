import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { MetricsAccess, type MetricsAccessSettings } from './metrics-access';
import { listenForMetrics, serveMetricsOnServicePort } from './metrics-endpoints';
import { Telemetry } from './telemetry';

const TOKEN = 'metrics-token-0123456789abcdef';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A service port (Fastify) serving /metrics as the settings say. */
function servicePort(settings: MetricsAccessSettings): FastifyInstance {
  const fastify = Fastify();
  serveMetricsOnServicePort(fastify, new Telemetry(), new MetricsAccess(settings));
  return fastify;
}

async function scrape(fastify: FastifyInstance, headers: Record<string, string> = {}) {
  const response = await fastify.inject({ method: 'GET', url: '/metrics', headers });
  return { status: response.statusCode, type: response.headers['content-type'], body: response.body };
}

describe('/metrics on the service port (JUMBE_PORT)', () => {
  it('is not served to anyone without JUMBE_METRICS_TOKEN, in the error envelope', async () => {
    const fastify = servicePort({ metricsPort: null, metricsToken: null });
    const refused = await scrape(fastify);
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body)).toEqual({
      message: expect.stringContaining('JUMBE_METRICS_TOKEN'),
      error: { code: 'not_found' },
    });
    expect((await scrape(fastify, bearer('anything-at-all-0123456789'))).status).toBe(404);
  });

  it('answers 401 without the token or with a wrong one, and the exposition with it', async () => {
    const fastify = servicePort({ metricsPort: null, metricsToken: TOKEN });
    for (const headers of [{}, bearer(`${TOKEN}x`), bearer(TOKEN.slice(1)), { authorization: TOKEN }]) {
      const refused = await scrape(fastify, headers);
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.body)).toEqual({
        message: expect.stringContaining('metrics token'),
        error: { code: 'unauthorized' },
      });
      expect(refused.body).not.toContain('# TYPE');
    }
    const served = await scrape(fastify, bearer(TOKEN));
    expect(served.status).toBe(200);
    expect(served.type).toMatch(/^text\/plain/);
    expect(served.body).toMatch(/^# TYPE jumbe_http_requests_total counter$/m);
  });

  it('answers 404 in the envelope when JUMBE_METRICS_PORT is set, token or not', async () => {
    const fastify = servicePort({ metricsPort: 9464, metricsToken: TOKEN });
    for (const headers of [{}, bearer(TOKEN)]) {
      const refused = await scrape(fastify, headers);
      expect(refused.status).toBe(404);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'not_found' } });
    }
  });
});

describe('/metrics on JUMBE_METRICS_PORT', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function metricsPort(metricsToken: string | null): Promise<string> {
    const access = new MetricsAccess({ metricsPort: 0, metricsToken });
    server = await listenForMetrics(0, '127.0.0.1', new Telemetry(), access);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('serves anyone who reaches it when no token is set, and only /metrics', async () => {
    const url = await metricsPort(null);
    const served = await fetch(`${url}/metrics`);
    expect(served.status).toBe(200);
    expect(await served.text()).toMatch(/^# TYPE jumbe_http_requests_total counter$/m);
    const other = await fetch(`${url}/api/v1/health`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('requires the token there too when one is set', async () => {
    const url = await metricsPort(TOKEN);
    const refused = await fetch(`${url}/metrics`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await fetch(`${url}/metrics`, { headers: bearer(TOKEN) })).status).toBe(200);
  });
});
