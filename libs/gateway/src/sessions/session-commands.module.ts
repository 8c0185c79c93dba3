import { Module } from '@nestjs/common';
import { SessionCommandClient } from './session-command.client';

/** The client every feature sends session commands through, to the worker that owns the session. */
@Module({
  providers: [SessionCommandClient],
  exports: [SessionCommandClient],
})
export class SessionCommandsModule {}
