import {
  BatchedSessionRepository,
  CallSettingsRepository,
  ExpiredMessageRepository,
  NetworkCredentialStore,
  WebhookRepository,
} from '@jumbe/persistence';
import type { SessionWorkerPorts, WebhookSubscriptionLookup } from '@jumbe/session-worker';
import { observeNetworkDriver } from '@jumbe/telemetry';
import type { SessionWorkerInfrastructure } from './session-worker-infrastructure';
import { createNetworkDriver } from './network-driver-factory';
import { MemorySandboxStore, RedisSandboxStore } from '@jumbe/network';

/** The session worker's ports, bound to this process's network driver, stores and leases. */
export function sessionWorkerBindings(infrastructure: SessionWorkerInfrastructure): SessionWorkerPorts {
  const { config, dataSource, logger } = infrastructure;
  const ownership = infrastructure.ownership('session-worker');
  return {
    config,
    logger,
    driver: observeNetworkDriver(
      createNetworkDriver(config, {
        // Shared by every worker through Redis; in memory when there is one process (all-in-one).
        sandboxStore: infrastructure.redis
          ? new RedisSandboxStore(infrastructure.redis)
          : new MemorySandboxStore(),
        dataSource,
        secretKey: infrastructure.secretKey,
        uploads: infrastructure.uploads,
        logger,
      }),
    ),
    // State writes of many sessions at once (a restore) go out together.
    sessions: new BatchedSessionRepository(dataSource),
    credentials: new NetworkCredentialStore(dataSource),
    bus: infrastructure.bus,
    events: infrastructure.events,
    media: infrastructure.media,
    leases: ownership.leases,
    leaseUpkeep: () => ownership.upkeep(),
    registry: ownership.registry,
    subscriptions: webhookSubscriptions(new WebhookRepository(dataSource)),
    callSettings: new CallSettingsRepository(dataSource),
    invalidations: infrastructure.invalidations,
    expiredMessages: new ExpiredMessageRepository(dataSource),
  };
}

/** What the dispatcher would deliver to: an enabled webhook with a signing secret. */
function webhookSubscriptions(webhooks: WebhookRepository): WebhookSubscriptionLookup {
  return {
    async eventsOf(accountId) {
      const webhook = await webhooks.find(accountId);
      return webhook && webhook.enabled && webhook.secretCiphertext !== null ? webhook.events : null;
    },
  };
}
