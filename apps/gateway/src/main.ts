import './tracing';
import 'reflect-metadata';
import { startInfrastructure, telemetryBindings } from '@jumbe/composition';
import { GATEWAY_INFRASTRUCTURE, gatewayBindings } from '@jumbe/gateway-composition';
import { configOrExit, loadConfig, requireDistributedSettings } from '@jumbe/config';
import { createHttpApp, GatewayModule } from '@jumbe/gateway';
import { createLogger, runService } from '@jumbe/platform';
import { TelemetryModule } from '@jumbe/telemetry';

/** The stateless gateway, one of N replicas: `npm run start:gateway`. */
const config = configOrExit(() => {
  const loaded = loadConfig();
  requireDistributedSettings(loaded, 'the gateway');
  return loaded;
});
const logger = createLogger(config.logLevel, 'gateway');

runService(logger, async () => {
  const infrastructure = await startInfrastructure(
    config,
    'distributed',
    logger,
    'gateway',
    GATEWAY_INFRASTRUCTURE,
  );
  const app = await createHttpApp(
    TelemetryModule.around(
      GatewayModule.register(gatewayBindings(infrastructure)),
      telemetryBindings(infrastructure),
    ),
    infrastructure,
  );
  await app.listen(config.port, config.host);
  logger.info({ url: await app.getUrl() }, 'gateway listening');
  return {
    shutdownDelayMs: config.shutdownDelayMs,
    stop: async () => {
      await app.close();
      await infrastructure.close();
    },
  };
});
