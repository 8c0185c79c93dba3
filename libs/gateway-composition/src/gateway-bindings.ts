import { SessionProxyVault, WebhookVault } from '@jumbe/domain';
import type { GatewayPorts } from '@jumbe/gateway';
import { OperatorService } from '@jumbe/operator';
import {
  AccountRepository,
  ApiKeyRepository,
  DashboardOperatorSessionRepository,
  DashboardSessionRepository,
  DailyUsageRepository,
  IdempotencyRepository,
  SendFailureRepository,
  SessionProxyRepository,
  SessionRepository,
  UsageRepository,
  WebhookDeliveryRepository,
  WebhookRepository,
} from '@jumbe/persistence';
import { healthProbes, type Infrastructure } from '@jumbe/composition';

/** The gateway's ports, bound to this process's PostgreSQL, bus and coordination adapters. */
export function gatewayBindings(infrastructure: Infrastructure): GatewayPorts {
  const { dataSource } = infrastructure;
  return {
    config: infrastructure.config,
    logger: infrastructure.logger,
    health: healthProbes(infrastructure),
    apiKeys: new ApiKeyRepository(dataSource),
    accounts: new AccountRepository(dataSource),
    usageLedger: new UsageRepository(dataSource),
    dailyUsage: new DailyUsageRepository(dataSource),
    sessions: new SessionRepository(dataSource),
    sendFailures: new SendFailureRepository(dataSource),
    idempotency: new IdempotencyRepository(dataSource),
    webhooks: new WebhookRepository(dataSource),
    deliveries: new WebhookDeliveryRepository(dataSource),
    webhookSecrets: new WebhookVault(infrastructure.secretKey),
    operator: new OperatorService(dataSource, infrastructure.invalidations),
    mediaFiles: infrastructure.media,
    uploads: infrastructure.uploads,
    bus: infrastructure.bus,
    usageCounters: infrastructure.usageStore,
    invalidations: infrastructure.invalidations,
    rateLimiter: infrastructure.rateLimiter,
    sessionProxies: new SessionProxyRepository(dataSource),
    sessionProxyVault: new SessionProxyVault(infrastructure.secretKey),
    liveEvents: infrastructure.liveEvents,
    dashboardSessions: new DashboardSessionRepository(dataSource),
    operatorSessions: new DashboardOperatorSessionRepository(dataSource),
  };
}
