export * from './session-worker.module';
export * from './ports';
