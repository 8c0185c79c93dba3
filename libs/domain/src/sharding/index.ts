// Virtual shards: which shard a session is on, which worker should own each shard, and the
// subject its owner serves.
export * from './shard-count';
export * from './shard-of';
export * from './shard-assignment';
export * from './shard-subject';
