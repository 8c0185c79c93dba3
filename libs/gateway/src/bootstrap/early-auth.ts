import { ApiError } from '@jumbe/contracts';
import type { FastifyInstance, FastifyReply, onRequestHookHandler } from 'fastify';
import { AdminTokenCheck } from '../auth/admin-token-check';
import { ApiKeyAuthenticator } from '../auth/api-key-authenticator';
import type { DashboardSessions } from '../auth/dashboard-sessions';
import { presentedDashboardTokenHash } from '../auth/dashboard-token';
import type { OperatorSessions } from '../auth/operator-sessions';
import { presentedKeyHash } from '../auth/presented-key';
import type { RouteAuth } from '../http/route-description';
import { GATEWAY_ROUTES } from '../openapi/gateway-routes';
import { lingerAfterAnswer } from '../http/linger-after-answer';

/** `GET /api/v1/webhook/deliveries/:id/redeliver` → its auth, keyed as Fastify names the route. */
const AUTH_BY_ROUTE = new Map<string, RouteAuth>(
  GATEWAY_ROUTES.map((route) => [`${route.method} ${route.path.replace(/\{(\w+)\}/g, ':$1')}`, route.auth]),
);

/**
 * Checks the key (or admin token) in `onRequest`, before Fastify reads the body: a client without
 * a valid credential is answered 401, and its connection closed, without the server buffering a
 * byte of what it announced.
 * The route guards check again with the rest of CONTRACT §2's order (suspension, quota, scope,
 * body), against the same revocable cache, so a key revoked while its body uploads is refused.
 *
 * Each route gets the check its route description names when it is registered, so a request pays
 * no lookup of its route; and the check is a callback hook, not an async one: a key the cache
 * knows (nearly every request) is settled without a promise, only a miss waits for the database.
 */
export function installEarlyAuthentication(
  fastify: FastifyInstance,
  authenticator: ApiKeyAuthenticator,
  adminCheck: AdminTokenCheck,
  dashboardSessions: DashboardSessions,
  operatorSessions: OperatorSessions,
): void {
  // `done()` is called outside the `try`s: what runs after the hook is Fastify's, not a refusal.
  const checkKey: onRequestHookHandler = (request, reply, done) => {
    // A dashboard session's token (CONTRACT §11): checked against the store at a human's pace.
    const dashboardTokenHash = presentedDashboardTokenHash(request.headers);
    if (dashboardTokenHash !== null) {
      dashboardSessions.resolve(dashboardTokenHash).then(
        () => done(),
        (error: unknown) => refuse(error, reply, done),
      );
      return;
    }
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
    // The operator's dashboard session token (CONTRACT §11), instead of the admin token itself.
    const sessionTokenHash = presentedDashboardTokenHash(request.headers);
    if (sessionTokenHash !== null) {
      operatorSessions.resolve(sessionTokenHash).then(
        () => done(),
        (error: unknown) => refuse(error, reply, done),
      );
      return;
    }
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
 * Answers a refused credential at once, and closes the connection: the body is never parsed or
 * buffered. A client that sent `Expect: 100-continue` got no `100 Continue` (installProtocolRefusals
 * sends it only after this check), so it never starts its body; one that did not wait reads its 401
 * while still writing, and what it still sends is discarded for at most LINGER_MS before the socket
 * is cut (lingerAfterAnswer says why a plain close would reset it before it read its answer).
 */
function refuse(error: unknown, reply: FastifyReply, done: (error?: Error) => void): void {
  if (!(error instanceof ApiError)) return done(error as Error);
  lingerAfterAnswer(reply.request.raw);
  void reply.headers(error.headers).header('connection', 'close').status(error.status).send(error.toBody());
}
