import { ApiError } from '@jumbe/contracts';
import { productVersion } from '@jumbe/platform';
import type { FastifyInstance } from 'fastify';

/** Where readiness is asked (HealthController): it gets the health document, not an error. */
const HEALTH_PATH = '/api/v1/health';

/**
 * Once the server is closing (after the shutdown delay), a request that still arrives on a
 * kept-alive connection is refused in the contract's shapes, with the connection closed: the
 * health document saying `stopping` on the health route, 503 `unavailable` with Retry-After
 * anywhere else. Fastify's own `return503OnClosing` answers with a body of its own, which is
 * neither (a load balancer or a client parsing our envelope would choke on it).
 */
export function installClosingRefusal(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!closing) return done();
    void reply.header('connection', 'close').status(503);
    if (request.url.split('?')[0] === HEALTH_PATH) {
      void reply.send({
        status: 'unavailable',
        version: productVersion(),
        uptimeSeconds: Math.round(process.uptime()),
        checks: { process: 'stopping' },
      });
      return;
    }
    const error = new ApiError(
      'unavailable',
      'This gateway is shutting down; send the request again (another gateway will take it).',
    );
    void reply.header('retry-after', '1').send(error.toBody());
  });
}
