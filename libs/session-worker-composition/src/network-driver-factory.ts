import type { JumbeConfig } from '@jumbe/config';
import {
  type NetworkDriver,
  SandboxNetworkDriver,
  type SandboxStore,
  WhatsAppNetworkDriver,
} from '@jumbe/network';
import {
  InboundMediaRepository,
  InboundOutboxRepository,
  NetworkCredentialStore,
  ReceivedMessageRepository,
  SentMessageRepository,
  SessionProxyRepository,
  SessionStartRepository,
} from '@jumbe/persistence';
import { telemetry } from '@jumbe/telemetry';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';

export interface NetworkDriverDeps {
  sandboxStore: SandboxStore;
  /** Where drivers keep sessions' credentials (`network_credentials`). */
  dataSource: DataSource;
  /** JUMBE_SECRET_KEY: the credentials are encrypted at rest with it. */
  secretKey: string;
  /** Files customers uploaded to send (multipart media sends), put there by the gateway. */
  uploads: { open(name: string): Promise<{ data: Readable } | null> };
  logger: Logger;
}

/** The driver a worker connects sessions with: real WhatsApp by default, the sandbox on request. */
export function createNetworkDriver(config: JumbeConfig, deps: NetworkDriverDeps): NetworkDriver {
  if (config.network === 'sandbox') {
    // Devices keep their links with the credentials: the all-in-one's network forgets on restart.
    return new SandboxNetworkDriver(
      deps.sandboxStore,
      {},
      { credentials: new NetworkCredentialStore(deps.dataSource), secretKey: deps.secretKey },
    );
  }
  // One instance: the outbox writes (and prunes) the quotable copies the driver reads.
  const receivedMessages = new ReceivedMessageRepository(deps.dataSource);
  return new WhatsAppNetworkDriver({
    credentials: new NetworkCredentialStore(deps.dataSource),
    sentMessages: new SentMessageRepository(deps.dataSource),
    inboundOutbox: new InboundOutboxRepository(deps.dataSource, receivedMessages),
    receivedMessages,
    inboundMedia: new InboundMediaRepository(deps.dataSource),
    uploads: deps.uploads,
    // Sessions' own proxies (docs/session-proxy.md), set through PUT /session/proxy.
    sessionProxies: new SessionProxyRepository(deps.dataSource),
    // A session's open reads its proxy, creds and key index in one statement.
    sessionStart: new SessionStartRepository(deps.dataSource),
    secretKey: deps.secretKey,
    logger: deps.logger,
    allowPrivateNetworks: config.allowPrivateNetworks,
    version: config.whatsappVersion ?? undefined,
    webSocketUrl: config.whatsappUrl ?? undefined,
    // A pairing code must be answered before the gateway gives up on the command.
    pairingCodeWaitMs: Math.max(2_000, config.commandTimeoutMs - 3_000),
    // Paces connection starts (restores included) inside the driver, apart from lease upkeep.
    connectSpacingMs: config.connectSpacingMs,
    onUndecryptable: () => telemetry().inboundUndecryptable.inc(),
  });
}
