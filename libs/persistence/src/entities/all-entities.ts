import { AccountEntity } from './account.entity';
import { DeploymentSettingEntity } from './deployment-setting.entity';
import { ApiKeyEntity } from './api-key.entity';
import { IdempotencyRecordEntity } from './idempotency-record.entity';
import { InboundEventEntity } from './inbound-event.entity';
import { InboundOutboxEntity } from './inbound-outbox.entity';
import { InboundMediaEntity } from './inbound-media.entity';
import { NetworkCredentialEntity } from './network-credential.entity';
import { SentMessageEntity } from './sent-message.entity';
import { ReceivedMessageEntity } from './received-message.entity';
import { UsageDailyEntity } from './usage-daily.entity';
import { PlanEntity } from './plan.entity';
import { SendFailureEntity } from './send-failure.entity';
import { SessionEntity } from './session.entity';
import { SessionProxyEntity } from './session-proxy.entity';
import { SessionCallSettingsEntity } from './session-call-settings.entity';
import { DashboardSessionEntity } from './dashboard-session.entity';
import { DashboardOperatorSessionEntity } from './dashboard-operator-session.entity';
import { UsageCounterEntity } from './usage-counter.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';

/**
 * Every entity, listed in code rather than found by glob: the same sources run compiled under
 * dist/ (.js) and from .ts under Jest, and a glob would have to know which.
 */
export const ALL_ENTITIES = [
  PlanEntity,
  AccountEntity,
  ApiKeyEntity,
  UsageCounterEntity,
  SessionEntity,
  NetworkCredentialEntity,
  SentMessageEntity,
  InboundOutboxEntity,
  InboundMediaEntity,
  ReceivedMessageEntity,
  UsageDailyEntity,
  SendFailureEntity,
  IdempotencyRecordEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
  InboundEventEntity,
  DeploymentSettingEntity,
  SessionProxyEntity,
  SessionCallSettingsEntity,
  DashboardSessionEntity,
  DashboardOperatorSessionEntity,
];
