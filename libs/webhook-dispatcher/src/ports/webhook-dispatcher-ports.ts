import type { JumbeConfig } from '@jumbe/config';
import type { InvalidationBus, LeaseUpkeep, ShardLeaseStore, WorkerRegistry } from '@jumbe/coordination';
import type { WebhookVault } from '@jumbe/domain';
import type { EventSource, MessageBus } from '@jumbe/messaging';
import type { Logger } from 'pino';
import type { DeliveryLog } from './delivery-log';
import type { WebhookLookup } from './webhook-lookup';

/**
 * Everything a webhook dispatcher runs on, bound by a composition root (the dispatcher app or the
 * all-in-one launcher): the event stream it consumes, its stores, and its shard leases.
 */
export interface WebhookDispatcherPorts {
  config: JumbeConfig;
  logger: Logger;
  webhooks: WebhookLookup;
  deliveries: DeliveryLog;
  /** Opens the sealed webhook signing secrets and URLs. */
  webhookSecrets: WebhookVault;
  invalidations: InvalidationBus;
  bus: MessageBus;
  events: EventSource;
  leases: ShardLeaseStore;
  /** A new upkeep that renews the dispatcher's leases (ShardKeeper). */
  leaseUpkeep(): LeaseUpkeep;
  registry: WorkerRegistry;
}
