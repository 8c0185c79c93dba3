import { Inject, Injectable } from '@nestjs/common';
import type { DependencyName, Infrastructure } from '../infrastructure';
import { HEALTH_INFRASTRUCTURE } from './health.tokens';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  version: string;
  uptimeSeconds: number;
  checks: Partial<Record<DependencyName, 'ok' | 'unavailable'>>;
}

const CHECK_TIMEOUT_MS = 1_500;

/** Probes each dependency this process uses, in parallel and each with a deadline. */
@Injectable()
export class HealthService {
  private readonly probes: Record<DependencyName, () => Promise<unknown>>;

  constructor(@Inject(HEALTH_INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {
    this.probes = {
      database: () => infrastructure.dataSource.query('SELECT 1'),
      bus: () => infrastructure.bus.check(),
      coordination: () => infrastructure.coordinationHealth.check(),
    };
  }

  async report(): Promise<HealthReport> {
    const names = Object.keys(this.probes) as DependencyName[];
    const results = await Promise.all(names.map((name) => withDeadline(this.probes[name]())));
    const checks = Object.fromEntries(names.map((name, i) => [name, results[i] ? 'ok' : 'unavailable']));
    return {
      status: results.every(Boolean) ? 'ok' : 'unavailable',
      version: this.infrastructure.version,
      uptimeSeconds: Math.round((Date.now() - this.infrastructure.startedAt.getTime()) / 1000),
      checks,
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
