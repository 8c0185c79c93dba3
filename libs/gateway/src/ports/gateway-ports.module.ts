import { type DynamicModule, Global, Module, type Provider } from '@nestjs/common';
import { SessionProxyVault } from '@jumbe/domain';
import {
  BUS,
  CONFIG,
  INVALIDATIONS,
  LOGGER,
  RATE_LIMITER,
  USAGE_COUNTERS,
  WEBHOOK_SECRETS,
} from '../gateway.tokens';
import { AccountAdministration } from './account-administration';
import { AccountLookup } from './account-lookup';
import { ApiKeyLookup } from './api-key-lookup';
import { DashboardSessionStore } from './dashboard-session-store';
import { DeliveryHistory } from './delivery-history';
import type { GatewayPorts } from './gateway-ports';
import { IdempotencyStore } from './idempotency-store';
import { LiveEventFeed } from './live-event-feed';
import { MediaFileReader } from './media-file-reader';
import { OperatorSessionStore } from './operator-session-store';
import { SendFailureLog } from './send-failure-log';
import { SessionCatalogue } from './session-catalogue';
import { SessionProxyStore } from './session-proxy-store';
import { UploadStore } from './upload-store';
import { DailyUsageLedger, UsageLedger } from './usage-ledger';
import { WebhookStore } from './webhook-store';

/** Each port as a Nest provider, so services receive exactly what they declare. */
function portProviders(ports: GatewayPorts): Provider[] {
  return [
    { provide: CONFIG, useValue: ports.config },
    { provide: LOGGER, useValue: ports.logger },
    { provide: BUS, useValue: ports.bus },
    { provide: INVALIDATIONS, useValue: ports.invalidations },
    { provide: RATE_LIMITER, useValue: ports.rateLimiter },
    { provide: USAGE_COUNTERS, useValue: ports.usageCounters },
    { provide: WEBHOOK_SECRETS, useValue: ports.webhookSecrets },
    { provide: ApiKeyLookup, useValue: ports.apiKeys },
    { provide: AccountLookup, useValue: ports.accounts },
    { provide: UsageLedger, useValue: ports.usageLedger },
    { provide: DailyUsageLedger, useValue: ports.dailyUsage },
    { provide: SessionCatalogue, useValue: ports.sessions },
    { provide: SendFailureLog, useValue: ports.sendFailures },
    { provide: IdempotencyStore, useValue: ports.idempotency },
    { provide: WebhookStore, useValue: ports.webhooks },
    { provide: DeliveryHistory, useValue: ports.deliveries },
    { provide: AccountAdministration, useValue: ports.operator },
    { provide: MediaFileReader, useValue: ports.mediaFiles },
    { provide: UploadStore, useValue: ports.uploads },
    { provide: SessionProxyStore, useValue: ports.sessionProxies },
    { provide: SessionProxyVault, useValue: ports.sessionProxyVault },
    { provide: LiveEventFeed, useValue: ports.liveEvents },
    { provide: DashboardSessionStore, useValue: ports.dashboardSessions },
    { provide: OperatorSessionStore, useValue: ports.operatorSessions },
  ];
}

/**
 * What the composition root bound (GatewayPorts), offered to every feature module: each feature's
 * services name the ports they use in their constructors, and receive only those.
 */
@Global()
@Module({})
export class GatewayPortsModule {
  static register(ports: GatewayPorts): DynamicModule {
    const providers = portProviders(ports);
    return {
      module: GatewayPortsModule,
      providers,
      exports: providers.map((provider) => (provider as { provide: unknown }).provide as string | symbol),
    };
  }
}
