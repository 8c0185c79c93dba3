import './tracing';
import 'reflect-metadata';
import { configOrExit, loadConfig, recordListeningAddress } from '@jumbe/config';
import { createHttpApp } from '@jumbe/gateway';
import { INFRASTRUCTURE_PARTS, startInfrastructure, telemetryBindings } from '@jumbe/composition';
import { createLogger, runService } from '@jumbe/platform';
import { TelemetryModule } from '@jumbe/telemetry';
import { AllInOneModule } from './all-in-one.module';

/**
 * `npm start`: gateway, session worker and webhook dispatcher in one process, on an embedded
 * PostgreSQL, the in-process bus and in-memory coordination unless JUMBE_*_URL say otherwise.
 */
const config = configOrExit(() => loadConfig());
const logger = createLogger(config.logLevel, 'all-in-one');

runService(logger, async () => {
  const infrastructure = await startInfrastructure(
    config,
    'all-in-one',
    logger,
    'all-in-one',
    // Every service runs here, so every part: AllInOneModule binds each to what it uses.
    INFRASTRUCTURE_PARTS,
  );
  const app = await createHttpApp(
    TelemetryModule.around(AllInOneModule.register(infrastructure), telemetryBindings(infrastructure)),
    infrastructure,
  );
  await app.listen(config.port, config.host);
  const url = await app.getUrl();
  // So `npx jumbe quickstart` can print where this process really listens (before saying so).
  const forgetAddress = await recordListeningAddress(config.dataDir, url);
  logger.info({ url, dataDir: config.dataDir, network: config.network }, 'jumbe listening');
  return {
    shutdownDelayMs: config.shutdownDelayMs,
    stop: async () => {
      await forgetAddress();
      await app.close();
      await infrastructure.close();
    },
  };
});
