// Redis-backed counters, invalidation and rate limits, with in-memory twins for the all-in-one mode.
export * from './coordination-logger';
export * from './coordination-unavailable-error';
export * from './redis-connection-failure';
export * from './redis-client';
export * from './close-redis-client';
export * from './wait-for-redis-ready';

export * from './usage-counter-store';
export * from './redis-usage-counter-store';
export * from './memory-usage-counter-store';

export * from './invalidation-bus';
export * from './redis-invalidation-bus';
export * from './memory-invalidation-bus';
export * from './postgres-invalidation-bus';

export * from './rate-limiter';
export * from './redis-rate-limiter';
export * from './memory-rate-limiter';

export * from './coordination-health';
export * from './redis-coordination-health';
export * from './memory-coordination-health';

export * from './ownership';
