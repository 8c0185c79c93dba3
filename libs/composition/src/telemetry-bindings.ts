import type { TelemetryOptions } from '@jumbe/telemetry';
import { healthProbes } from './health-probes';
import type { CoreInfrastructure } from './infrastructure';

/** What the process's telemetry observes: where /metrics is served and to whom, and its dependencies' probes. */
export function telemetryBindings(infrastructure: CoreInfrastructure): TelemetryOptions {
  const { config, logger } = infrastructure;
  return {
    metricsPort: config.metricsPort,
    metricsToken: config.metricsToken,
    host: config.host,
    logger,
    dependencies: healthProbes(infrastructure).probes,
  };
}
