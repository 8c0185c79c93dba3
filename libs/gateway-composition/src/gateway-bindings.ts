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
  PlanRepository,
  SendFailureRepository,
  SessionProxyRepository,
  SessionRepository,
  UsageRepository,
  WebhookDeliveryRepository,
  WebhookRepository,
} from '@jumbe/persistence';
import { healthProbes } from '@jumbe/composition';
import type { GatewayInfrastructure } from './gateway-infrastructure';

/** The gateway's ports, bound to this process's PostgreSQL, bus and coordination adapters. */
export function gatewayBindings(infrastructure: GatewayInfrastructure): GatewayPorts {
  const { dataSource } = infrastructure;
  // One instance of each store the admin API's operator service shares with the gateway's ports.
  const accounts = new AccountRepository(dataSource);
  const apiKeys = new ApiKeyRepository(dataSource);
  const usageLedger = new UsageRepository(dataSource);
  const sessions = new SessionRepository(dataSource);
  const sendFailures = new SendFailureRepository(dataSource);
  const operator = new OperatorService({
    plans: new PlanRepository(dataSource),
    accounts,
    keys: apiKeys,
    usage: usageLedger,
    sessions,
    failures: sendFailures,
    invalidations: infrastructure.invalidations,
  });
  return {
    config: infrastructure.config,
    logger: infrastructure.logger,
    health: healthProbes(infrastructure),
    apiKeys,
    accounts,
    usageLedger,
    dailyUsage: new DailyUsageRepository(dataSource),
    sessions,
    sendFailures,
    idempotency: new IdempotencyRepository(dataSource),
    webhooks: new WebhookRepository(dataSource),
    deliveries: new WebhookDeliveryRepository(dataSource),
    webhookSecrets: new WebhookVault(infrastructure.secretKey),
    operator,
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
