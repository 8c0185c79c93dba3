// Shard ownership: leases with fencing tokens, and the registry of live workers they are spread over.
export * from './ownership-key-prefix';
export * from './ownership-arguments';

export * from './shard-lease-store';
export * from './redis-shard-lease-store';
export * from './memory-shard-lease-store';

export * from './lease-upkeep';
export * from './in-thread-lease-upkeep';
export * from './threaded-lease-upkeep';

export * from './worker-registry';
export * from './redis-worker-registry';
export * from './memory-worker-registry';
export * from './shard-keeper';
export * from './member-id';
