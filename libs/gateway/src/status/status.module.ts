import { Module } from '@nestjs/common';
import { StatusController } from './status.controller';

/** The service status page (`GET /api/v1/status`). */
@Module({
  controllers: [StatusController],
})
export class StatusModule {}
