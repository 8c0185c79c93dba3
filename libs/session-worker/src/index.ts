export * from './session-worker.module';
