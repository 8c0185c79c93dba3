import type { Logger } from 'pino';
import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import type { Server } from 'node:http';
import { instrumentHttp } from './http-instrumentation';
import { MetricsAccess, type MetricsAccessSettings } from './metrics-access';
import { listenForMetrics, serveMetricsOnServicePort } from './metrics-endpoints';
import { Telemetry, telemetry } from './telemetry';

const TELEMETRY_OPTIONS = Symbol('TELEMETRY_OPTIONS');

/** What telemetry needs from the process it observes (bound by the composition root). */
export interface TelemetryOptions extends MetricsAccessSettings {
  host: string;
  logger: Logger;
  /** Each dependency's probe, reported as `jumbe_dependency_up`. */
  dependencies: Record<string, () => Promise<unknown>>;
}

/**
 * Wires the process's Telemetry into a Nest app: request ids, HTTP metrics and request logs on its
 * Fastify instance, dependency probes, and `GET /metrics`: on JUMBE_METRICS_PORT when that is set,
 * else on the service's port for callers with JUMBE_METRICS_TOKEN (MetricsAccess).
 */
@Injectable()
class TelemetryLifecycle implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private metricsServer: Server | null = null;
  private readonly access: MetricsAccess;

  constructor(
    private readonly telemetry: Telemetry,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(TELEMETRY_OPTIONS) private readonly options: TelemetryOptions,
  ) {
    this.access = new MetricsAccess(options);
  }

  onModuleInit(): void {
    const { logger, dependencies } = this.options;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    instrumentHttp(fastify, this.telemetry, logger);
    for (const [name, probe] of Object.entries(dependencies)) {
      this.telemetry.watchDependency(name, () => succeeds(probe()));
    }
    serveMetricsOnServicePort(fastify, this.telemetry, this.access);
  }

  async onApplicationBootstrap(): Promise<void> {
    const { metricsPort, host, logger } = this.options;
    if (metricsPort === null) return;
    const server = await listenForMetrics(metricsPort, host, this.telemetry, this.access);
    this.metricsServer = server;
    const address = server.address();
    logger.info({ port: typeof address === 'object' ? address?.port : metricsPort }, 'metrics listening');
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.metricsServer;
    this.metricsServer = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A probe that resolves true when the dependency answers within 1.5 s, false otherwise. */
async function succeeds(probe: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), 1_500);
  });
  try {
    return await Promise.race([probe.then(() => true), deadline]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

@Module({})
export class TelemetryModule {
  /** `service`, observed: its module plus metrics, request ids and request logs. */
  static around(service: DynamicModule, options: TelemetryOptions): DynamicModule {
    return {
      module: TelemetryModule,
      global: true,
      imports: [service],
      providers: [
        { provide: Telemetry, useValue: telemetry() },
        { provide: TELEMETRY_OPTIONS, useValue: options },
        TelemetryLifecycle,
      ],
      exports: [Telemetry],
    };
  }
}
