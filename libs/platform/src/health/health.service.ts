import { Inject, Injectable } from '@nestjs/common';
import type { DependencyName, HealthProbes } from './health-probes';
import { HEALTH_PROBES } from './health.tokens';

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
  private readonly probes: HealthProbes['probes'];

  constructor(@Inject(HEALTH_PROBES) private readonly subject: HealthProbes) {
    this.probes = subject.probes;
  }

  async report(): Promise<HealthReport> {
    const names = Object.keys(this.probes) as DependencyName[];
    const results = await Promise.all(names.map((name) => withDeadline(this.probes[name]())));
    const checks = Object.fromEntries(names.map((name, i) => [name, results[i] ? 'ok' : 'unavailable']));
    return {
      status: results.every(Boolean) ? 'ok' : 'unavailable',
      version: this.subject.version,
      uptimeSeconds: Math.round((Date.now() - this.subject.startedAt.getTime()) / 1000),
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
