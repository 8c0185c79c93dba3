import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AccountDirectory } from './auth/account-directory';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import { UsageMeter } from './metering/usage-meter';

/** Starts the gateway's caches and usage flushing with the app, and flushes usage on shutdown. */
@Injectable()
export class GatewayLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly directory: AccountDirectory,
    private readonly meter: UsageMeter,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([this.authenticator.start(), this.directory.start()]);
    this.meter.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.meter.stop();
  }
}
