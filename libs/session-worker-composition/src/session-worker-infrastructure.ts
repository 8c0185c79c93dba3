import type { Infrastructure } from '@jumbe/composition';

/**
 * What a session worker opens besides the core: the event stream it publishes inbound events to,
 * the file stores between it and the gateways, its shard leases, and the request-path Redis
 * connection its sandbox network keeps its state on.
 */
export const SESSION_WORKER_INFRASTRUCTURE = ['events', 'media', 'uploads', 'ownership', 'redis'] as const;

export type SessionWorkerInfrastructure = Infrastructure<(typeof SESSION_WORKER_INFRASTRUCTURE)[number]>;
