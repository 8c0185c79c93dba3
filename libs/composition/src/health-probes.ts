import type { HealthProbes } from '@jumbe/platform';
import type { CoreInfrastructure } from './infrastructure';

/** The health check's probes, bound to this process's connections. */
export function healthProbes(infrastructure: CoreInfrastructure): HealthProbes {
  return {
    version: infrastructure.version,
    startedAt: infrastructure.startedAt,
    probes: {
      database: () => infrastructure.dataSource.query('SELECT 1'),
      bus: () => infrastructure.bus.check(),
      coordination: () => infrastructure.coordinationHealth.check(),
    },
  };
}
