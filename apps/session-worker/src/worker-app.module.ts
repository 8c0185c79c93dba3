import { HealthModule, type Infrastructure } from '@jumbe/platform';
import { SessionWorkerModule } from '@jumbe/session-worker';
import { type DynamicModule, Module } from '@nestjs/common';

/** A session worker process: the worker module plus a health endpoint for probes. */
@Module({})
export class WorkerAppModule {
  static register(infrastructure: Infrastructure): DynamicModule {
    return {
      module: WorkerAppModule,
      imports: [SessionWorkerModule.register(infrastructure), HealthModule.register(infrastructure)],
    };
  }
}
