export { createDataSource, MIGRATIONS_TABLE, type DataSourceOptions } from './data-source';
export { migrate, assertSchemaCurrent, MIGRATION_LOCK_KEY } from './migration-runner';
export { SchemaTooNewError, SchemaBehindError } from './schema-errors';
export { isUuid } from './is-uuid';

export { PlanEntity } from './entities/plan.entity';
export { AccountEntity } from './entities/account.entity';
export { ApiKeyEntity } from './entities/api-key.entity';
export { UsageCounterEntity } from './entities/usage-counter.entity';
export { SessionEntity } from './entities/session.entity';
export { NetworkCredentialEntity } from './entities/network-credential.entity';
export { SendFailureEntity } from './entities/send-failure.entity';
export { IdempotencyRecordEntity } from './entities/idempotency-record.entity';
export { WebhookEntity } from './entities/webhook.entity';
export { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
export { ALL_ENTITIES } from './entities/all-entities';
export { bigintNumber } from './entities/bigint-number.transformer';
export { ALL_MIGRATIONS } from './migrations/all-migrations';
export { schemaMigrations } from './schema-migrations';

export type { Plan } from './models/plan';
export type { Account } from './models/account';
export type { ApiKey } from './models/api-key';

export { PlanRepository, type NewPlan } from './repositories/plan.repository';
export { AccountRepository, type NewAccount, type AccountChanges } from './repositories/account.repository';
export { ApiKeyRepository, type NewApiKey, type ActiveKey } from './repositories/api-key.repository';
export {
  DailyUsageRepository,
  type DailyHits,
  UsageRepository,
  type UsageSnapshot,
} from './repositories/usage.repository';
export {
  SessionRepository,
  type SessionRef,
  type SessionStatePatch,
  type FencedWriteResult,
  type StartClaim,
} from './repositories/session.repository';
export { BatchedSessionRepository } from './repositories/batched-session.repository';
export {
  SendFailureRepository,
  type NewSendFailure,
  type SendFailure,
} from './repositories/send-failure.repository';
export {
  IdempotencyRepository,
  IDEMPOTENCY_WINDOW_HOURS,
  type IdempotencyClaim,
} from './repositories/idempotency.repository';
export {
  InboundEventRepository,
  type InboundEventAppended,
  type InboundEventRow,
} from './repositories/inbound-event.repository';
export { WebhookRepository, type StoredWebhook, type WebhookToSave } from './repositories/webhook.repository';
export { DeploymentSettingsRepository } from './repositories/deployment-settings.repository';
export { SessionProxyRepository, type StoredSessionProxy } from './repositories/session-proxy.repository';
export { SessionProxyEntity } from './entities/session-proxy.entity';
export { SessionStartRepository } from './repositories/session-start.repository';
export { CallSettingsRepository } from './repositories/call-settings.repository';
export {
  DashboardSessionRepository,
  type LiveDashboardSession,
  type NewDashboardSession,
} from './repositories/dashboard-session.repository';
export {
  DashboardOperatorSessionRepository,
  type NewOperatorSession,
  type StoredOperatorSession,
} from './repositories/dashboard-operator-session.repository';
export { WebhookDeliveryRepository, type DeliveryRecord } from './repositories/webhook-delivery.repository';
export { InboundEventEntity } from './entities/inbound-event.entity';
export {
  NetworkCredentialStore,
  type CredentialChange,
  type CredentialWriteResult,
} from './repositories/network-credential-store';
export type { SessionRecord } from './models/session-record';
export { DuplicateNameError } from './repositories/duplicate-name.error';
export { UnknownPlanError } from './repositories/unknown-plan.error';

export { EmbeddedDatabase, readRunningEmbedded, type EmbeddedDatabaseOptions } from './embedded-database';

export { createThrowawayDatabase, type ThrowawayDatabase } from './testing/throwaway-database';
export {
  openMigratedTestDatabase,
  TEST_SERVER_URL,
  type MigratedTestDatabase,
} from './testing/migrated-test-database';
export { createAccountFixture, type AccountFixture } from './testing/account-fixture';
export { SentMessageRepository, SENT_MESSAGE_TTL_MS } from './repositories/sent-message.repository';
export { InboundOutboxRepository, type OutboxEntry } from './repositories/inbound-outbox.repository';
export {
  ReceivedMessageRepository,
  RECEIVED_MESSAGE_TTL_MS,
  RECEIVED_MESSAGES_PER_SESSION,
} from './repositories/received-message.repository';
export {
  InboundMediaRepository,
  INBOUND_MEDIA_TTL_MS,
  INBOUND_MEDIA_PER_SESSION,
  type StoredInboundMedia,
} from './repositories/inbound-media.repository';
export {
  ExpiredMessageRepository,
  MESSAGE_RETENTION,
  type ExpiredRowsDeleted,
  type MessageRetention,
} from './repositories/expired-message.repository';
