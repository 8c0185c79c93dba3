import type { TelemetryOptions } from '@jumbe/telemetry';
import { healthProbes } from './health-probes';
import type { Infrastructure } from './infrastructure';

/** What the process's telemetry observes: its metrics port and its dependencies' probes. */
export function telemetryBindings(infrastructure: Infrastructure): TelemetryOptions {
  const { config, logger } = infrastructure;
  return {
    metricsPort: config.metricsPort,
    host: config.host,
    logger,
    dependencies: healthProbes(infrastructure).probes,
  };
}
