import { Module } from '@nestjs/common';
import { AdminAccountsController } from './admin-accounts.controller';
import { AdminDashboardSessionsController } from './admin-dashboard-sessions.controller';
import { AdminPlansController } from './admin-plans.controller';

/** The operator's admin API (CONTRACT §8): plans, accounts, keys, dashboard sign-in. */
@Module({
  controllers: [AdminPlansController, AdminAccountsController, AdminDashboardSessionsController],
})
export class AdminModule {}
