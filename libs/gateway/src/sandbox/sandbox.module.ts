import { Module } from '@nestjs/common';
import { SessionCommandsModule } from '../sessions/session-commands.module';
import { SandboxCallController } from './sandbox-call.controller';
import { SandboxController } from './sandbox.controller';

/** The sandbox's control routes (CONTRACT §9): imported only when JUMBE_NETWORK=sandbox. */
@Module({
  imports: [SessionCommandsModule],
  controllers: [SandboxController, SandboxCallController],
})
export class SandboxModule {}
