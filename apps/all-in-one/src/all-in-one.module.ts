import type { Infrastructure } from '@jumbe/composition';
import { gatewayBindings } from '@jumbe/gateway-composition';
import { sessionWorkerBindings } from '@jumbe/session-worker-composition';
import { webhookDispatcherBindings } from '@jumbe/webhook-dispatcher-composition';
import { GatewayModule } from '@jumbe/gateway';
import { SessionWorkerModule } from '@jumbe/session-worker';
import { WebhookDispatcherModule } from '@jumbe/webhook-dispatcher';
import { type DynamicModule, Module } from '@nestjs/common';

/** The three services' modules in one process, each bound to the same infrastructure (ARCHITECTURE.md). */
@Module({})
export class AllInOneModule {
  static register(infrastructure: Infrastructure): DynamicModule {
    return {
      module: AllInOneModule,
      imports: [
        GatewayModule.register(gatewayBindings(infrastructure)),
        SessionWorkerModule.register(sessionWorkerBindings(infrastructure)),
        WebhookDispatcherModule.register(webhookDispatcherBindings(infrastructure)),
      ],
    };
  }
}
