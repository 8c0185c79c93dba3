import { InitialSchema1700000000000 } from './1700000000000-initial-schema';
import { ApiKeyLastUsed1764000000000 } from './1764000000000-api-key-last-used';
import { SentMessages1764100000000 } from './1764100000000-sent-messages';
import { InboundOutbox1764200000000 } from './1764200000000-inbound-outbox';
import { UsageDaily1764300000000 } from './1764300000000-usage-daily';
import { DeliveryRequestId1764400000000 } from './1764400000000-delivery-request-id';
import { WebhookUrlCiphertext1764410000000 } from './1764410000000-webhook-url-ciphertext';
import { DeploymentSettings1764420000000 } from './1764420000000-deployment-settings';
import { WebhookEvents1764600000000 } from './1764600000000-webhook-events';
import { InboundMedia1764700000000 } from './1764700000000-inbound-media';
import { ReceivedMessages1764710000000 } from './1764710000000-received-messages';
import { WebhookRetries1764720000000 } from './1764720000000-webhook-retries';
import { KeptMessagesByAge1764737300000 } from './1764737300000-kept-messages-by-age';
import { InboundEventsOrder1764800000000 } from './1764800000000-inbound-events-order';
import { SessionProxies1764931000000 } from './1764931000000-session-proxies';
import { DashboardSessions1765100000000 } from './1765100000000-dashboard-sessions';
import { SentMessagesKeepUntil1765250000000 } from './1765250000000-sent-messages-keep-until';
import { InboundOutboxArrival1765260000000 } from './1765260000000-inbound-outbox-arrival';
import { InboundOutboxAwaitedResend1765270000000 } from './1765270000000-inbound-outbox-awaited-resend';
import { SessionCallSettings1765230000000 } from './1765230000000-session-call-settings';
import { DashboardOperatorSessions1765240000000 } from './1765240000000-dashboard-operator-sessions';

/**
 * Every migration, oldest first, listed in code (not found by glob) for the same reason as the
 * entities. A migration name missing from this list but present in the database means a newer
 * release has migrated it (see `SchemaTooNewError`).
 */
export const ALL_MIGRATIONS = [
  InitialSchema1700000000000,
  ApiKeyLastUsed1764000000000,
  SentMessages1764100000000,
  InboundOutbox1764200000000,
  UsageDaily1764300000000,
  DeliveryRequestId1764400000000,
  WebhookUrlCiphertext1764410000000,
  DeploymentSettings1764420000000,
  WebhookEvents1764600000000,
  InboundMedia1764700000000,
  ReceivedMessages1764710000000,
  WebhookRetries1764720000000,
  KeptMessagesByAge1764737300000,
  InboundEventsOrder1764800000000,
  SessionProxies1764931000000,
  DashboardSessions1765100000000,
  SessionCallSettings1765230000000,
  DashboardOperatorSessions1765240000000,
  SentMessagesKeepUntil1765250000000,
  InboundOutboxArrival1765260000000,
  InboundOutboxAwaitedResend1765270000000,
];
