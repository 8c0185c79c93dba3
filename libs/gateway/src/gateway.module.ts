import {
  AccountRepository,
  ApiKeyRepository,
  DailyUsageRepository,
  UsageRepository,
} from '@jumbe/persistence';
import { HealthModule, type Infrastructure } from '@jumbe/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { AdminAccountsController } from './admin/admin-accounts.controller';
import { AdminPlansController } from './admin/admin-plans.controller';
import { operatorServiceProvider } from './admin/operator.provider';
import { AccountDirectory } from './auth/account-directory';
import { AdminTokenCheck } from './auth/admin-token-check';
import { AdminTokenGuard } from './auth/admin-token.guard';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import { CustomerAuthGuard } from './auth/customer-auth.guard';
import { GatewayLifecycle } from './gateway-lifecycle';
import { INFRASTRUCTURE } from './gateway.tokens';
import { UsageMeter } from './metering/usage-meter';
import { KeysController } from './keys/keys.controller';
import { DocsController } from './openapi/docs.controller';
import { StatusController } from './status/status.controller';
import { MessageSender } from './messages/message-sender';
import { MessagesController } from './messages/messages.controller';
import { SandboxController } from './sandbox/sandbox.controller';
import { SessionCommandClient } from './sessions/session-command.client';
import { SessionsController } from './sessions/sessions.controller';
import { UsageController } from './usage/usage.controller';
import { WebhookController } from './webhook/webhook.controller';
import { WebhookSettings } from './webhook/webhook-settings';

/** The stateless HTTP gateway: auth, quotas, validation, and (later) routing commands to workers. */
@Module({})
export class GatewayModule {
  static register(infrastructure: Infrastructure): DynamicModule {
    return {
      module: GatewayModule,
      imports: [HealthModule.register(infrastructure)],
      controllers: [
        StatusController,
        DocsController,
        UsageController,
        SessionsController,
        MessagesController,
        WebhookController,
        KeysController,
        // The sandbox's control routes exist only when the sandbox network is selected (CONTRACT §9).
        ...(infrastructure.config.network === 'sandbox' ? [SandboxController] : []),
        AdminPlansController,
        AdminAccountsController,
      ],
      providers: [
        { provide: INFRASTRUCTURE, useValue: infrastructure },
        {
          provide: ApiKeyAuthenticator,
          useFactory: () =>
            new ApiKeyAuthenticator(
              new ApiKeyRepository(infrastructure.dataSource),
              infrastructure.invalidations,
            ),
        },
        {
          provide: AccountDirectory,
          useFactory: () =>
            new AccountDirectory(
              new AccountRepository(infrastructure.dataSource),
              infrastructure.invalidations,
            ),
        },
        {
          provide: UsageMeter,
          useFactory: () =>
            new UsageMeter(
              infrastructure.usageStore,
              new UsageRepository(infrastructure.dataSource),
              infrastructure.logger,
              undefined,
              new DailyUsageRepository(infrastructure.dataSource),
            ),
        },
        {
          provide: AdminTokenCheck,
          useFactory: () => new AdminTokenCheck(infrastructure.config.adminToken, infrastructure.logger),
        },
        operatorServiceProvider,
        SessionCommandClient,
        MessageSender,
        WebhookSettings,
        CustomerAuthGuard,
        AdminTokenGuard,
        GatewayLifecycle,
      ],
      exports: [INFRASTRUCTURE, UsageMeter, CustomerAuthGuard],
    };
  }
}
