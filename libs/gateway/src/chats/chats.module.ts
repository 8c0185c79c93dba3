import { Module } from '@nestjs/common';
import { SessionCommandsModule } from '../sessions/session-commands.module';
import { ChatsController } from './chats.controller';

/** Chat actions: read receipts and presence. */
@Module({
  imports: [SessionCommandsModule],
  controllers: [ChatsController],
})
export class ChatsModule {}
