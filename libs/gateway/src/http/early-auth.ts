import { ApiError } from '@jumbe/contracts';
import type { FastifyInstance, FastifyReply, onRequestHookHandler } from 'fastify';
import { AdminTokenCheck } from '../auth/admin-token-check';
import { ApiKeyAuthenticator } from '../auth/api-key-authenticator';
import { presentedKeyHash } from '../auth/presented-key';
import { ROUTES, type RouteAuth } from '../openapi/route-catalogue';

/** `GET /api/v1/webhook/deliveries/:id/redeliver` → its auth, keyed as Fastify names the route. */
const AUTH_BY_ROUTE = new Map<string, RouteAuth>(
  ROUTES.map((route) => [`${route.method} ${route.path.replace(/\{(\w+)\}/g, ':$1')}`, route.auth]),
);

/**
 * Checks the key (or admin token) in `onRequest`, before Fastify reads the body: a client without
 * a valid credential is answered 401 without the server buffering a byte of what it announced.
 * The route guards check again with the rest of CONTRACT §2's order (suspension, quota, scope,
 * body), against the same revocable cache, so a key revoked while its body uploads is refused.
 *
 * Each route gets the check its catalogue entry names when it is registered, so a request pays
 * no lookup of its route; and the check is a callback hook, not an async one: a key the cache
 * knows (nearly every request) is settled without a promise, only a miss waits for the database.
 */
export function installEarlyAuthentication(
  fastify: FastifyInstance,
  authenticator: ApiKeyAuthenticator,
  adminCheck: AdminTokenCheck,
): void {
  // `done()` is called outside the `try`s: what runs after the hook is Fastify's, not a refusal.
  const checkKey: onRequestHookHandler = (request, reply, done) => {
    let hash: string;
    try {
      hash = presentedKeyHash(request, authenticator);
    } catch (error) {
      return refuse(error, reply, done);
    }
    if (authenticator.cachedPrincipal(hash) !== undefined) return done();
    authenticator.authenticateHash(hash).then(
      () => done(),
      (error: unknown) => refuse(error, reply, done),
    );
  };
  const checkAdmin: onRequestHookHandler = (request, reply, done) => {
    try {
      adminCheck.verify(request.headers.authorization, request.ip);
    } catch (error) {
      return refuse(error, reply, done);
    }
    done();
  };
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      const auth = AUTH_BY_ROUTE.get(`${method} ${route.url}`);
      if (auth === 'key' || auth === 'admin') {
        route.onRequest = [...[route.onRequest ?? []].flat(), auth === 'key' ? checkKey : checkAdmin];
        return;
      }
    }
  });
}

/**
 * Answers a refused credential at once. The body is never parsed: Node discards whatever of it
 * still arrives (nothing is buffered) so the client, still writing, reads its 401 instead of a
 * reset connection. The request timeout bounds how long a client may keep sending.
 */
function refuse(error: unknown, reply: FastifyReply, done: (error?: Error) => void): void {
  if (!(error instanceof ApiError)) return done(error as Error);
  void reply.headers(error.headers).status(error.status).send(error.toBody());
}
