import type { Infrastructure } from '@jumbe/composition';

/** What a webhook dispatcher opens besides the core: the event stream it consumes, and its shard leases. */
export const WEBHOOK_DISPATCHER_INFRASTRUCTURE = ['eventSource', 'ownership'] as const;

export type WebhookDispatcherInfrastructure = Infrastructure<
  (typeof WEBHOOK_DISPATCHER_INFRASTRUCTURE)[number]
>;
