import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { SessionCommandsModule } from '../sessions/session-commands.module';
import { ContactProfileController } from './contact-profile.controller';
import { ProfileController } from './profile.controller';

/** The number's own profile, and contacts' profiles and blocking. */
@Module({
  imports: [SessionCommandsModule, ContactsModule],
  controllers: [ProfileController, ContactProfileController],
})
export class ProfilesModule {}
