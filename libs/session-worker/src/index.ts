export * from './session-worker.module';
export * from './shard-keeper';
