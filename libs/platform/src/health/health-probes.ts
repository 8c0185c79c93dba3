/** The dependencies a Jumbe process reports on in `GET /api/v1/health`. */
export type DependencyName = 'database' | 'bus' | 'coordination';

/**
 * What the health check needs from the process it runs in: how to reach each dependency, and who
 * is answering. The composition root binds the probes to the process's connections.
 */
export interface HealthProbes {
  version: string;
  startedAt: Date;
  probes: Record<DependencyName, () => Promise<unknown>>;
}
