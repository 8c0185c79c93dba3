import type { JumbeConfig } from '@jumbe/config';
import { PinoNestLogger, productVersion } from '@jumbe/platform';
import type { Logger } from 'pino';
import fastifyMultipart from '@fastify/multipart';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiError } from '@jumbe/contracts';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AdminTokenCheck } from '../auth/admin-token-check';
import { ApiKeyAuthenticator } from '../auth/api-key-authenticator';
import { DashboardSessions } from '../auth/dashboard-sessions';
import { OperatorSessions } from '../auth/operator-sessions';
import {
  capConnectionsPerAddress,
  clientErrorHandler,
  connectionTimeoutOptions,
  MAX_PARAM_LENGTH,
  trustedProxies,
} from '../http/connection-limits';
import { installEarlyAuthentication } from './early-auth';
import { installWebSocketUpgrades } from '../events/websocket-upgrades';
import { installClosingRefusal } from '../http/closing-refusal';
import { installProtocolRefusals } from '../http/protocol-refusals';
import { dashboardDirectory, serveDashboard } from '../dashboard/dashboard-assets';
import { ApiExceptionFilter } from '../http/api-exception.filter';
import { installRawBodyCollector } from '../http/raw-body';
import { buildOpenApiDocument } from '../openapi/openapi-document';

/**
 * The Swagger UI at /docs is served from this process (scripts, styles, the document): nothing
 * from elsewhere runs in it, and no other site may frame it. Styles may be inline because the UI
 * sets some in its markup; scripts may not.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
].join('; ');

/**
 * Builds the HTTP server every gateway-hosting process runs (the gateway app and the all-in-one
 * launcher): Fastify, our body collector, the error envelope everywhere, and the docs.
 */
export async function createHttpApp(
  rootModule: DynamicModule,
  options: { config: JumbeConfig; logger: Logger },
): Promise<NestFastifyApplication> {
  const { config, logger } = options;
  const adapter = new FastifyAdapter({
    // Our collector enforces the configured limit itself (after auth); this only caps the socket.
    bodyLimit: config.bodyLimitBytes * 4,
    // Forwarded headers are believed only from the proxies the operator names (JUMBE_TRUST_PROXY).
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    // Refused in our own shapes instead (closing-refusal.ts).
    return503OnClosing: false,
    ...connectionTimeoutOptions(config),
    // A long `:id` reaches its route and gets the route's answer (400 or 404), not a bare 414.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler: clientErrorHandler(logger),
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const apiError = new ApiError(
        'not_found',
        `No route ${request.method} ${request.url.split('?')[0]?.slice(0, 200)}. See /api/v1/openapi.json.`,
      );
      logger.debug({ code: error.code }, 'request refused by the router');
      void reply.status(apiError.status).send(apiError.toBody());
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, adapter, {
    bodyParser: false,
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  capConnectionsPerAddress(
    fastify.server,
    config.maxConnectionsPerAddress,
    trustedProxies(config.trustProxy),
    logger,
  );
  installClosingRefusal(fastify);
  installProtocolRefusals(fastify, logger);
  installEarlyAuthentication(
    fastify,
    app.get(ApiKeyAuthenticator, { strict: false }),
    app.get(AdminTokenCheck, { strict: false }),
    app.get(DashboardSessions, { strict: false }),
    app.get(OperatorSessions, { strict: false }),
  );
  installRawBodyCollector(fastify, config.bodyLimitBytes, config.bodyLimitBytes * 4);
  // multipart/form-data is left unread by the parser: the media route streams its file part to the
  // upload store (media-upload-reader.ts), within the media limit, after authentication.
  await app.register(fastifyMultipart as never, { limits: { fileSize: config.mediaMaxBytes + 1 } });
  // WebSocket handshakes of GET /api/v1/events pass the same pipeline, then the route upgrades them.
  installWebSocketUpgrades(fastify);
  // Nest routes Fastify's own errors (bad content-length, not found…) through this filter too.
  app.useGlobalFilters(new ApiExceptionFilter(logger));
  await app.register(fastifySwagger, {
    mode: 'static',
    specification: { document: buildOpenApiDocument(productVersion(), config.network) as never },
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: { validatorUrl: null } as never,
    staticCSP: DOCS_CSP,
  });
  // Older browsers know only X-Frame-Options; newer ones read the CSP's frame-ancestors.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.url?.startsWith('/docs')) void reply.header('x-frame-options', 'DENY');
    done();
  });
  const dashboard = dashboardDirectory();
  if (dashboard === null)
    logger.warn('dashboard bundle not found (run `npm run build`); /dashboard is not served');
  await serveDashboard(app, dashboard);
  return app;
}
