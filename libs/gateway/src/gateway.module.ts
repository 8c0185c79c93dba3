import { UploadStore } from './ports/upload-store';
import type { JumbeConfig } from '@jumbe/config';
import { HealthModule } from '@jumbe/platform';
import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { AdminAccountsController } from './admin/admin-accounts.controller';
import { AdminPlansController } from './admin/admin-plans.controller';
import { AccountDirectory } from './auth/account-directory';
import { AdminTokenCheck } from './auth/admin-token-check';
import { AdminTokenGuard } from './auth/admin-token.guard';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import { CustomerAuthGuard } from './auth/customer-auth.guard';
import { DashboardSessions } from './auth/dashboard-sessions';
import { DashboardSessionsController } from './dashboard/dashboard-sessions.controller';
import { DashboardSessionStore } from './ports/dashboard-session-store';
import { OperatorSessions } from './auth/operator-sessions';
import { OperatorSessionStore } from './ports/operator-session-store';
import { AdminDashboardSessionsController } from './admin/admin-dashboard-sessions.controller';
import { GatewayLifecycle } from './gateway-lifecycle';
import {
  BUS,
  CONFIG,
  INVALIDATIONS,
  LOGGER,
  RATE_LIMITER,
  USAGE_COUNTERS,
  WEBHOOK_SECRETS,
} from './gateway.tokens';
import { ChatsController } from './chats/chats.controller';
import { ContactsController } from './contacts/contacts.controller';
import { GroupsController } from './groups/groups.controller';
import { NumberLookups } from './contacts/number-lookups';
import { KeysController } from './keys/keys.controller';
import { MessageSender } from './messages/message-sender';
import { MessagesController } from './messages/messages.controller';
import { InboundMediaController } from './messages/inbound-media.controller';
import { InboundMediaFiles } from './messages/inbound-media-files';
import { UsageMeter } from './metering/usage-meter';
import { DocsController } from './openapi/docs.controller';
import { EventsController } from './events/events.controller';
import { EventStreams } from './events/event-streams';
import { LiveEventFeed } from './ports/live-event-feed';
import { AccountAdministration } from './ports/account-administration';
import { AccountLookup } from './ports/account-lookup';
import type { InvalidationBus } from './ports/invalidation-bus';
import type { RateLimiter } from './ports/rate-limiter';
import type { UsageCounterStore } from './ports/usage-counter-store';
import { ApiKeyLookup } from './ports/api-key-lookup';
import { DeliveryHistory } from './ports/delivery-history';
import type { GatewayPorts } from './ports/gateway-ports';
import { IdempotencyStore } from './ports/idempotency-store';
import { MediaFileReader } from './ports/media-file-reader';
import { SendFailureLog } from './ports/send-failure-log';
import { SessionCatalogue } from './ports/session-catalogue';
import { DailyUsageLedger, UsageLedger } from './ports/usage-ledger';
import { WebhookStore } from './ports/webhook-store';
import { SandboxController } from './sandbox/sandbox.controller';
import { SandboxCallController } from './sandbox/sandbox-call.controller';
import { CallsController } from './calls/calls.controller';
import { ContactProfileController } from './profiles/contact-profile.controller';
import { ProfileController } from './profiles/profile.controller';
import { SessionCommandClient } from './sessions/session-command.client';
import { SessionsController } from './sessions/sessions.controller';
import { SessionProxyController } from './sessions/session-proxy.controller';
import { SessionProxySettings } from './sessions/session-proxy-settings';
import { SessionProxyStore } from './ports/session-proxy-store';
import { SessionProxyVault } from '@jumbe/domain';
import { StatusController } from './status/status.controller';
import { UsageController } from './usage/usage.controller';
import { WebhookController } from './webhook/webhook.controller';
import { WebhookSettings } from './webhook/webhook-settings';
import type { Logger } from 'pino';

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

/** The stateless HTTP gateway: auth, quotas, validation, and routing commands to workers. */
@Module({})
export class GatewayModule {
  static register(ports: GatewayPorts): DynamicModule {
    return {
      module: GatewayModule,
      imports: [HealthModule.register(ports.health)],
      controllers: [
        StatusController,
        DocsController,
        UsageController,
        SessionsController,
        SessionProxyController,
        MessagesController,
        InboundMediaController,
        ChatsController,
        GroupsController,
        ContactsController,
        ContactProfileController,
        ProfileController,
        CallsController,
        WebhookController,
        KeysController,
        EventsController,
        DashboardSessionsController,
        // The sandbox's control routes exist only when the sandbox network is selected (CONTRACT §9).
        ...(ports.config.network === 'sandbox' ? [SandboxController, SandboxCallController] : []),
        AdminPlansController,
        AdminAccountsController,
        AdminDashboardSessionsController,
      ],
      providers: [
        ...portProviders(ports),
        {
          provide: ApiKeyAuthenticator,
          useFactory: (keys: ApiKeyLookup, invalidations: InvalidationBus) =>
            new ApiKeyAuthenticator(keys, invalidations),
          inject: [ApiKeyLookup, INVALIDATIONS],
        },
        {
          provide: AccountDirectory,
          useFactory: (accounts: AccountLookup, invalidations: InvalidationBus) =>
            new AccountDirectory(accounts, invalidations),
          inject: [AccountLookup, INVALIDATIONS],
        },
        {
          provide: UsageMeter,
          useFactory: (
            counters: UsageCounterStore,
            ledger: UsageLedger,
            logger: Logger,
            daily: DailyUsageLedger,
          ) => new UsageMeter(counters, ledger, logger, undefined, daily),
          inject: [USAGE_COUNTERS, UsageLedger, LOGGER, DailyUsageLedger],
        },
        {
          provide: DashboardSessions,
          useFactory: (store: DashboardSessionStore, rateLimiter: RateLimiter) =>
            new DashboardSessions(store, rateLimiter),
          inject: [DashboardSessionStore, RATE_LIMITER],
        },
        {
          provide: OperatorSessions,
          useFactory: (store: OperatorSessionStore, rateLimiter: RateLimiter, config: JumbeConfig) =>
            new OperatorSessions(store, rateLimiter, config.adminToken),
          inject: [OperatorSessionStore, RATE_LIMITER, CONFIG],
        },
        {
          provide: AdminTokenCheck,
          useFactory: (config: JumbeConfig, logger: Logger) => new AdminTokenCheck(config.adminToken, logger),
          inject: [CONFIG, LOGGER],
        },
        SessionCommandClient,
        MessageSender,
        InboundMediaFiles,
        NumberLookups,
        WebhookSettings,
        SessionProxySettings,
        EventStreams,
        CustomerAuthGuard,
        AdminTokenGuard,
        GatewayLifecycle,
      ],
      exports: [CONFIG, UsageMeter, CustomerAuthGuard],
    };
  }
}
