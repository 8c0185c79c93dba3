import { Module } from '@nestjs/common';
import { SessionCommandsModule } from '../sessions/session-commands.module';
import { CallsController } from './calls.controller';

/** A session's calls setting (CONTRACT §11). */
@Module({
  imports: [SessionCommandsModule],
  controllers: [CallsController],
})
export class CallsModule {}
