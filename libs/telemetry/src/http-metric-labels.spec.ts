import Fastify from 'fastify';
import { METHODS } from 'node:http';
import pino from 'pino';
import { instrumentHttp } from './http-instrumentation';
import { Telemetry } from './telemetry';

/** The label sets of jumbe_http_requests_total in a rendering. */
async function httpSeries(telemetry: Telemetry): Promise<string[]> {
  const text = await telemetry.registry.metrics();
  return text.split('\n').filter((line) => line.startsWith('jumbe_http_requests_total{'));
}

describe('HTTP metric labels', () => {
  it('count every method Node parses outside the API set as OTHER, on every unknown URL as unmatched', async () => {
    const telemetry = new Telemetry();
    const fastify = Fastify();
    instrumentHttp(fastify, telemetry, pino({ level: 'silent' }));
    fastify.get('/api/v1/things/:id', async () => ({ ok: true }));
    await fastify.ready();
    const methods = METHODS.filter((method) => method !== 'CONNECT');
    for (let i = 0; i < 300; i += 1) {
      await fastify.inject({ method: methods[i % methods.length] as 'GET', url: `/probe/${i}/x${i % 7}` });
    }
    await fastify.inject({ method: 'GET', url: '/api/v1/things/42' });
    await fastify.inject({ method: 'PROPFIND' as 'GET', url: '/api/v1/things/43' });

    const series = await httpSeries(telemetry);
    const labelled = new Set(series.map((line) => /method="([^"]+)"/.exec(line)?.[1]));
    expect(
      [...labelled].every((m) =>
        ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER'].includes(m!),
      ),
    ).toBe(true);
    expect(labelled.has('OTHER')).toBe(true);
    const routes = new Set(series.map((line) => /route="([^"]*)"/.exec(line)?.[1]));
    expect(routes).toEqual(new Set(['unmatched', '/api/v1/things/:id']));
    // One label set per method of the fixed set (and OTHER) per status: a handful, not hundreds.
    expect(series.length).toBeLessThanOrEqual(16);
  });
});
