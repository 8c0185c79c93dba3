import { Module } from '@nestjs/common';
import { SessionCommandsModule } from '../sessions/session-commands.module';
import { GroupsController } from './groups.controller';

/** Groups: create, read, change members and settings. */
@Module({
  imports: [SessionCommandsModule],
  controllers: [GroupsController],
})
export class GroupsModule {}
