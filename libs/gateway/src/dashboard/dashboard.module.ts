import { Module } from '@nestjs/common';
import { DashboardSessionsController } from './dashboard-sessions.controller';

/** Dashboard sign-in with an API key (CONTRACT §11). */
@Module({
  controllers: [DashboardSessionsController],
})
export class DashboardModule {}
