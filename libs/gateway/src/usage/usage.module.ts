import { Module } from '@nestjs/common';
import { UsageController } from './usage.controller';

/** The account's plan, cycle and counters (`GET /usage`). */
@Module({
  controllers: [UsageController],
})
export class UsageModule {}
