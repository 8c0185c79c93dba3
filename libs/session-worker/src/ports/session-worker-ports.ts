import type { JumbeConfig } from '@jumbe/config';
import type { InvalidationBus, LeaseUpkeep, ShardLeaseStore, WorkerRegistry } from '@jumbe/coordination';
import type { EventPublisher, MessageBus } from '@jumbe/messaging';
import type { NetworkDriver } from '@jumbe/network';
import type { Logger } from 'pino';
import type { CallSettingsStore } from './call-settings-store';
import type { CredentialStore } from './credential-store';
import type { ExpiredMessageSweeper } from './expired-message-sweeper';
import type { MediaFileStore } from './media-file-store';
import type { SessionStore } from './session-store';
import type { WebhookSubscriptionLookup } from './webhook-subscription-lookup';

/**
 * Everything a session worker runs on, bound by a composition root (the worker app or the
 * all-in-one launcher): the network driver it connects sessions with, its stores, the bus it
 * takes commands from, the stream it publishes inbound events to, its shard leases, and which
 * opt-in events each account takes (with the invalidations that say when that changed).
 */
export interface SessionWorkerPorts {
  config: JumbeConfig;
  logger: Logger;
  driver: NetworkDriver;
  sessions: SessionStore;
  credentials: CredentialStore;
  bus: MessageBus;
  events: EventPublisher;
  /** Where received media files go for the gateway to stream. */
  media: MediaFileStore;
  leases: ShardLeaseStore;
  /** A new upkeep that renews the worker's leases (ShardKeeper). */
  leaseUpkeep(): LeaseUpkeep;
  registry: WorkerRegistry;
  subscriptions: WebhookSubscriptionLookup;
  /** Sessions' calls settings (CONTRACT §11); absent → calls are neither answered nor reported. */
  callSettings?: CallSettingsStore;
  invalidations: InvalidationBus;
  /** Deletes expired message content, swept now and then (RetentionSweep). */
  expiredMessages: ExpiredMessageSweeper;
}
