import type { JumbeConfig } from '@jumbe/config';
import { Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { AccountDirectory } from './auth/account-directory';
import { AdminTokenCheck } from './auth/admin-token-check';
import { AdminTokenGuard } from './auth/admin-token.guard';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import { CustomerAuthGuard } from './auth/customer-auth.guard';
import { DashboardSessions } from './auth/dashboard-sessions';
import { OperatorSessions } from './auth/operator-sessions';
import { GatewayLifecycle } from './gateway-lifecycle';
import { CONFIG, INVALIDATIONS, LOGGER, RATE_LIMITER, USAGE_COUNTERS } from './gateway.tokens';
import { UsageMeter } from './metering/usage-meter';
import { AccountLookup } from './ports/account-lookup';
import { ApiKeyLookup } from './ports/api-key-lookup';
import { DashboardSessionStore } from './ports/dashboard-session-store';
import type { InvalidationBus } from './ports/invalidation-bus';
import { OperatorSessionStore } from './ports/operator-session-store';
import type { RateLimiter } from './ports/rate-limiter';
import type { UsageCounterStore } from './ports/usage-counter-store';
import { DailyUsageLedger, UsageLedger } from './ports/usage-ledger';

const SHARED = [
  ApiKeyAuthenticator,
  AccountDirectory,
  UsageMeter,
  DashboardSessions,
  OperatorSessions,
  AdminTokenCheck,
  CustomerAuthGuard,
  AdminTokenGuard,
];

/**
 * Who may call, and what it costs them: the authentication, the caches of keys and accounts, the
 * usage meter and the guards, used by the routes of every feature (and by the early
 * authentication hook, before Nest routes a request). Their start and stop go with the app.
 */
@Global()
@Module({
  providers: [
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
    CustomerAuthGuard,
    AdminTokenGuard,
    GatewayLifecycle,
  ],
  exports: SHARED,
})
export class GatewayAccessModule {}
