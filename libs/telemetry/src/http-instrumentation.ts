import { trace } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Telemetry } from './telemetry';

/** A caller's X-Request-Id is kept when it is this plain; anything else gets a fresh id. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const REFUSALS = new Set([401, 402, 403]);
/**
 * The methods a metric label names; any other (Node parses some thirty: PROPFIND, MKCOL, PURGE…)
 * is counted as `OTHER`, so a client cycling methods cannot add series (issue 29).
 */
const LABELLED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const instrumented = new WeakSet<FastifyInstance>();
const requestIds = new WeakMap<FastifyRequest, string>();

/** The request id of a request (X-Request-Id, given or generated), once instrumented. */
export function requestIdOf(request: FastifyRequest): string | undefined {
  return requestIds.get(request);
}

/**
 * On every request: an X-Request-Id (the caller's, or a new UUID) returned on the response
 * (`requestIdOf` gives it to the request's bus commands), and the route template as the name of
 * its trace span; on every response: the HTTP metrics and one JSON log line at info (method, route
 * template, status, duration, request id, account id; the raw URL only at debug: paths can carry
 * session ids).
 */
export function instrumentHttp(fastify: FastifyInstance, telemetry: Telemetry, logger: Logger): void {
  if (instrumented.has(fastify)) return;
  instrumented.add(fastify);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', assignRequestId(request));
    done();
  });
  // A reply sent by an earlier onRequest hook (a refused key, before the body is read) skips the
  // hook above; every reply passes here (and is then still in the request's trace span).
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('x-request-id')) void reply.header('x-request-id', assignRequestId(request));
    nameServerSpan(request);
    done(null, payload);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    observe(request, reply, telemetry, logger);
    done();
  });
}

/** The request's id: the caller's X-Request-Id when it is plain, else a new UUID; fixed once chosen. */
function assignRequestId(request: FastifyRequest): string {
  let requestId = requestIds.get(request);
  if (requestId === undefined) {
    const given = request.headers['x-request-id'];
    requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    requestIds.set(request, requestId);
  }
  return requestId;
}

/** `POST /api/v1/messages/text` rather than the bare method the HTTP instrumentation knows. */
function nameServerSpan(request: FastifyRequest): void {
  const span = trace.getActiveSpan();
  // Tracing off, there is no span: `routeOptions` builds an object on every read, so it waits.
  if (span === undefined) return;
  const route = request.routeOptions.url;
  if (route === undefined) return;
  span.updateName(`${request.method} ${route}`);
  span.setAttribute('http.route', route);
}

function observe(request: FastifyRequest, reply: FastifyReply, telemetry: Telemetry, logger: Logger): void {
  // The template (/api/v1/sessions/:sessionId), never the raw path; unmatched URLs share one label.
  const route = request.routeOptions.url ?? 'unmatched';
  const status = reply.statusCode;
  const labels = { route, method: methodLabel(request.method), status: String(status) };
  const seconds = reply.elapsedTime / 1000;
  telemetry.httpRequests.inc(labels);
  telemetry.httpDuration.observe(labels, seconds);
  const accountId = (request as { customer?: { access?: { accountId?: string } } }).customer?.access
    ?.accountId;
  if (isCustomerRoute(route)) {
    if (accountId !== undefined) telemetry.apiHits.inc();
    else if (REFUSALS.has(status)) telemetry.apiRefusals.inc({ status: String(status) });
  }
  const line: Record<string, unknown> = {
    requestId: requestIds.get(request),
    method: request.method,
    route,
    status,
    durationMs: Math.round(reply.elapsedTime * 10) / 10,
  };
  if (accountId !== undefined) line.accountId = accountId;
  if (logger.isLevelEnabled('debug')) line.url = request.url;
  logger.info(line, 'request');
}

/** The request's method as a metric label: one of a fixed set, or `OTHER`. */
export function methodLabel(method: string): string {
  return LABELLED_METHODS.has(method) ? method : 'OTHER';
}

function isCustomerRoute(route: string): boolean {
  return (
    route.startsWith('/api/v1/') && !route.startsWith('/api/v1/admin') && !route.startsWith('/api/v1/health')
  );
}
