import { Module } from '@nestjs/common';
import { SessionCommandsModule } from '../sessions/session-commands.module';
import { ContactsController } from './contacts.controller';
import { NumberLookups } from './number-lookups';

/** Number lookups (`GET /contacts/check`), rate-limited per session; profiles count with them. */
@Module({
  imports: [SessionCommandsModule],
  controllers: [ContactsController],
  providers: [NumberLookups],
  exports: [NumberLookups],
})
export class ContactsModule {}
