import { GatewayModule } from '@jumbe/gateway';
import type { Infrastructure } from '@jumbe/platform';
import { SessionWorkerModule } from '@jumbe/session-worker';
import { WebhookDispatcherModule } from '@jumbe/webhook-dispatcher';
import { type DynamicModule, Module } from '@nestjs/common';

/** The three services' modules in one process, over the same infrastructure (ARCHITECTURE.md). */
@Module({})
export class AllInOneModule {
  static register(infrastructure: Infrastructure): DynamicModule {
    return {
      module: AllInOneModule,
      imports: [
        GatewayModule.register(infrastructure),
        SessionWorkerModule.register(infrastructure),
        WebhookDispatcherModule.register(infrastructure),
      ],
    };
  }
}
