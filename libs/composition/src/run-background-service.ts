import { configOrExit, loadConfig, requireDistributedSettings } from '@jumbe/config';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, HealthModule, PinoNestLogger, runService } from '@jumbe/platform';
import { healthProbes } from './health-probes';
import type { Infrastructure, InfrastructurePart } from './infrastructure';
import { startInfrastructure } from './start-infrastructure';

@Module({})
class BackgroundServiceModule {}

/**
 * Runs a service without a public API (session worker, webhook dispatcher) as its own process:
 * its module plus an HTTP port that serves only /api/v1/health for probes (JUMBE_PORT; 0 = free).
 * It opens the infrastructure's core and the `parts` the service's bindings use.
 */
export function runBackgroundService<P extends InfrastructurePart>(
  service: string,
  parts: readonly P[],
  moduleFor: (infrastructure: Infrastructure<P>) => DynamicModule,
): void {
  const config = configOrExit(() => {
    const loaded = loadConfig();
    requireDistributedSettings(loaded, `the ${service}`);
    return loaded;
  });
  const logger = createLogger(config.logLevel, service);
  runService(logger, async () => {
    const infrastructure = await startInfrastructure(config, 'distributed', logger, service, parts);
    const root: DynamicModule = {
      module: BackgroundServiceModule,
      imports: [moduleFor(infrastructure), HealthModule.register(healthProbes(infrastructure))],
    };
    const app = await NestFactory.create<NestFastifyApplication>(root, new FastifyAdapter(), {
      logger: new PinoNestLogger(logger),
    });
    await app.listen(config.port, config.host);
    logger.info({ url: await app.getUrl() }, `${service} listening`);
    return {
      shutdownDelayMs: config.shutdownDelayMs,
      stop: async () => {
        await app.close();
        await infrastructure.close();
      },
    };
  });
}
