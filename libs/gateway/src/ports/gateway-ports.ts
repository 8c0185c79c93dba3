import type { UploadStore } from './upload-store';
import type { JumbeConfig } from '@jumbe/config';
import type { SessionProxyVault, WebhookVault } from '@jumbe/domain';
import type { HealthProbes } from '@jumbe/platform';
import type { Logger } from 'pino';
import type { AccountAdministration } from './account-administration';
import type { AccountLookup } from './account-lookup';
import type { CommandBus } from './command-bus';
import type { InvalidationBus } from './invalidation-bus';
import type { RateLimiter } from './rate-limiter';
import type { UsageCounterStore } from './usage-counter-store';
import type { ApiKeyLookup } from './api-key-lookup';
import type { LiveEventFeed } from './live-event-feed';
import type { DashboardSessionStore } from './dashboard-session-store';
import type { DeliveryHistory } from './delivery-history';
import type { IdempotencyStore } from './idempotency-store';
import type { OperatorSessionStore } from './operator-session-store';
import type { MediaFileReader } from './media-file-reader';
import type { SendFailureLog } from './send-failure-log';
import type { SessionCatalogue } from './session-catalogue';
import type { SessionProxyStore } from './session-proxy-store';
import type { DailyUsageLedger, UsageLedger } from './usage-ledger';
import type { WebhookStore } from './webhook-store';

/**
 * Everything the gateway runs on, bound by a composition root (the gateway app or the all-in-one
 * launcher): its stores as the narrow ports above, and the shared bus and coordination adapters.
 */
export interface GatewayPorts {
  config: JumbeConfig;
  logger: Logger;
  health: HealthProbes;
  apiKeys: ApiKeyLookup;
  accounts: AccountLookup;
  usageLedger: UsageLedger;
  dailyUsage: DailyUsageLedger;
  sessions: SessionCatalogue;
  sendFailures: SendFailureLog;
  idempotency: IdempotencyStore;
  webhooks: WebhookStore;
  deliveries: DeliveryHistory;
  /** Seals webhook signing secrets, and URLs that carry credentials, at rest. */
  webhookSecrets: WebhookVault;
  /** The operator's operations the admin API and `/keys` expose. */
  operator: AccountAdministration;
  /** Received media files workers downloaded, streamed by `GET /messages/media`. */
  mediaFiles: MediaFileReader;
  /** Files customers upload to send, on their way to the worker (multipart media sends). */
  uploads: UploadStore;
  bus: CommandBus;
  usageCounters: UsageCounterStore;
  invalidations: InvalidationBus;
  rateLimiter: RateLimiter;
  /** Sessions' own proxies (docs/session-proxy.md), sealed at rest. */
  sessionProxies: SessionProxyStore;
  /** Seals a session's proxy URL for the worker that connects it. */
  sessionProxyVault: SessionProxyVault;
  /** The events kept for live subscribers (`GET /api/v1/events`). */
  liveEvents: LiveEventFeed;
  /** Dashboard sign-ins (CONTRACT §11), read by every gateway. */
  dashboardSessions: DashboardSessionStore;
  /** The operator's dashboard sign-ins with the admin token, read by every gateway. */
  operatorSessions: OperatorSessionStore;
}
