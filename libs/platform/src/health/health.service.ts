import { Inject, Injectable } from '@nestjs/common';
import { shutdownState } from '../shutdown-state';
import type { DependencyName, HealthProbes } from './health-probes';
import { HEALTH_PROBES } from './health.tokens';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  version: string;
  uptimeSeconds: number;
  /** Each dependency's state; `process: 'stopping'` once a graceful shutdown has begun. */
  checks: Partial<Record<DependencyName, 'ok' | 'unavailable'>> & { process?: 'stopping' };
}

const CHECK_TIMEOUT_MS = 1_500;

/** Probes each dependency this process uses, in parallel and each with a deadline. */
@Injectable()
export class HealthService {
  private readonly probes: HealthProbes['probes'];

  constructor(@Inject(HEALTH_PROBES) private readonly subject: HealthProbes) {
    this.probes = subject.probes;
  }

  async report(): Promise<HealthReport> {
    // Stopping: not ready, whatever the dependencies say, so no new work is routed here.
    if (shutdownState.stopping)
      return { ...this.identity(), status: 'unavailable', checks: { process: 'stopping' } };
    const names = Object.keys(this.probes) as DependencyName[];
    const results = await Promise.all(names.map((name) => withDeadline(this.probes[name]())));
    const checks = Object.fromEntries(names.map((name, i) => [name, results[i] ? 'ok' : 'unavailable']));
    return { ...this.identity(), status: results.every(Boolean) ? 'ok' : 'unavailable', checks };
  }

  private identity() {
    return {
      version: this.subject.version,
      uptimeSeconds: Math.round((Date.now() - this.subject.startedAt.getTime()) / 1000),
    };
  }
}

async function withDeadline(probe: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([probe.then(() => true), deadline]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
