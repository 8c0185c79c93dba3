import { Module } from '@nestjs/common';
import { KeysController } from './keys.controller';

/** The account's own API keys (`/keys`). */
@Module({
  controllers: [KeysController],
})
export class KeysModule {}
