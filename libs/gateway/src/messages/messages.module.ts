import { Module } from '@nestjs/common';
import { SessionCommandsModule } from '../sessions/session-commands.module';
import { InboundMediaController } from './inbound-media.controller';
import { InboundMediaFiles } from './inbound-media-files';
import { MessageSender } from './message-sender';
import { MessagesController } from './messages.controller';

/** Sending messages (CONTRACT §5), the failed-send log, and the received media files. */
@Module({
  imports: [SessionCommandsModule],
  controllers: [MessagesController, InboundMediaController],
  providers: [MessageSender, InboundMediaFiles],
})
export class MessagesModule {}
