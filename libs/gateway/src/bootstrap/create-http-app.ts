import { type Infrastructure, PinoNestLogger } from '@jumbe/platform';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { dashboardDirectory, serveDashboard } from '../dashboard/dashboard-assets';
import { ApiExceptionFilter } from '../http/api-exception.filter';
import { installRawBodyCollector } from '../http/raw-body';
import { buildOpenApiDocument } from '../openapi/openapi-document';

/**
 * Builds the HTTP server every gateway-hosting process runs (the gateway app and the all-in-one
 * launcher): Fastify, our body collector, the error envelope everywhere, and the docs.
 */
export async function createHttpApp(
  rootModule: DynamicModule,
  infrastructure: Infrastructure,
): Promise<NestFastifyApplication> {
  const { config, logger } = infrastructure;
  const adapter = new FastifyAdapter({
    // Our collector enforces the configured limit itself (after auth); this only caps the socket.
    bodyLimit: config.bodyLimitBytes * 4,
    trustProxy: true,
    return503OnClosing: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, adapter, {
    bodyParser: false,
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  installRawBodyCollector(fastify, config.bodyLimitBytes, config.bodyLimitBytes * 4);
  // Nest routes Fastify's own errors (bad content-length, not found…) through this filter too.
  app.useGlobalFilters(new ApiExceptionFilter(logger));
  await app.register(fastifySwagger, {
    mode: 'static',
    specification: { document: buildOpenApiDocument(infrastructure.version) as never },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { validatorUrl: null } as never });
  const dashboard = dashboardDirectory();
  if (dashboard === null)
    logger.warn('dashboard bundle not found (run `npm run build`); /dashboard is not served');
  await serveDashboard(app, dashboard);
  return app;
}
