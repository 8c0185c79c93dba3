import { ApiError } from '@jumbe/contracts';
import type { FastifyInstance } from 'fastify';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { MetricsAccess } from './metrics-access';
import type { Telemetry } from './telemetry';

/**
 * `GET /metrics` on the service's own port, for those MetricsAccess admits there. The credential is
 * checked in `onRequest`, so a refused scrape costs neither a body read nor a render, and every
 * refusal is the error envelope.
 */
export function serveMetricsOnServicePort(
  fastify: FastifyInstance,
  telemetry: Telemetry,
  access: MetricsAccess,
): void {
  fastify.get(
    '/metrics',
    {
      onRequest: (request, reply, done) => {
        const refusal = access.refusalOnServicePort(request.headers.authorization);
        if (refusal === null) return done();
        void reply.headers(refusal.headers).status(refusal.status).send(refusal.toBody());
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await telemetry.exposition();
      return reply.type(contentType).send(body);
    },
  );
}

/** Serves only `GET /metrics` on JUMBE_METRICS_PORT (a plain HTTP server, no framework); resolves once listening. */
export async function listenForMetrics(
  port: number,
  host: string,
  telemetry: Telemetry,
  access: MetricsAccess,
): Promise<Server> {
  const server = createServer((request, response) => {
    if (
      (request.method !== 'GET' && request.method !== 'HEAD') ||
      request.url?.split('?')[0] !== '/metrics'
    ) {
      sendError(response, new ApiError('not_found', 'Only GET /metrics is served on this port.'));
      return;
    }
    const refusal = access.refusalOnMetricsPort(request.headers.authorization);
    if (refusal !== null) {
      sendError(response, refusal);
      return;
    }
    telemetry.exposition().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
      () => sendError(response, new ApiError('internal_error')),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

function sendError(response: ServerResponse, error: ApiError): void {
  response
    .writeHead(error.status, { ...error.headers, 'content-type': 'application/json; charset=utf-8' })
    .end(JSON.stringify(error.toBody()));
}
