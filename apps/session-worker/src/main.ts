import 'reflect-metadata';
import { loadConfig, requireDistributedSettings } from '@jumbe/config';
import { createLogger, PinoNestLogger, runService, startInfrastructure } from '@jumbe/platform';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { WorkerAppModule } from './worker-app.module';

/**
 * A session worker, one of M replicas: `npm run start:worker`. It owns a share of the session
 * shards; its HTTP port serves only /api/v1/health for probes (JUMBE_PORT, 0 = any free port).
 */
const config = loadConfig();
const logger = createLogger(config.logLevel, 'session-worker');

runService(logger, async () => {
  requireDistributedSettings(config, 'the session worker');
  const infrastructure = await startInfrastructure(config, 'distributed', logger, 'session-worker');
  const app = await NestFactory.create<NestFastifyApplication>(
    WorkerAppModule.register(infrastructure),
    new FastifyAdapter(),
    {
      logger: new PinoNestLogger(logger),
    },
  );
  await app.listen(config.port, config.host);
  logger.info({ url: await app.getUrl() }, 'session worker listening');
  return {
    stop: async () => {
      await app.close();
      await infrastructure.close();
    },
  };
});
