import { WebhookVault } from '@jumbe/domain';
import { WebhookDeliveryRepository, WebhookRepository } from '@jumbe/persistence';
import type { WebhookDispatcherPorts } from '@jumbe/webhook-dispatcher';
import type { WebhookDispatcherInfrastructure } from './webhook-dispatcher-infrastructure';

/** The webhook dispatcher's ports, bound to this process's event stream, stores and leases. */
export function webhookDispatcherBindings(
  infrastructure: WebhookDispatcherInfrastructure,
): WebhookDispatcherPorts {
  const { dataSource } = infrastructure;
  const ownership = infrastructure.ownership('webhook-dispatcher');
  return {
    config: infrastructure.config,
    logger: infrastructure.logger,
    webhooks: new WebhookRepository(dataSource),
    deliveries: new WebhookDeliveryRepository(dataSource),
    webhookSecrets: new WebhookVault(infrastructure.secretKey),
    invalidations: infrastructure.invalidations,
    bus: infrastructure.bus,
    events: infrastructure.eventSource,
    leases: ownership.leases,
    leaseUpkeep: () => ownership.upkeep(),
    registry: ownership.registry,
  };
}
