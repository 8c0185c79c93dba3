import type { Infrastructure } from '@jumbe/composition';

/**
 * What the gateway opens besides the core: the quota and rate-limit stores, the live event feed,
 * and the file stores between it and the workers. Never the event stream: workers publish to it
 * and dispatchers consume it.
 */
export const GATEWAY_INFRASTRUCTURE = [
  'usageStore',
  'rateLimiter',
  'liveEvents',
  'media',
  'uploads',
] as const;

export type GatewayInfrastructure = Infrastructure<(typeof GATEWAY_INFRASTRUCTURE)[number]>;
