import { Module } from '@nestjs/common';
import { SessionCommandsModule } from './session-commands.module';
import { SessionProxyController } from './session-proxy.controller';
import { SessionProxySettings } from './session-proxy-settings';
import { SessionsController } from './sessions.controller';

/** Sessions (CONTRACT §4): listing, start, QR, pairing code, logout, delete, and each session's proxy. */
@Module({
  imports: [SessionCommandsModule],
  controllers: [SessionsController, SessionProxyController],
  providers: [SessionProxySettings],
})
export class SessionsModule {}
