export * from './logger';
export * from './version';
export * from './run-service';
export * from './health/health.module';
export * from './health/health-probes';
export * from './managed-work';
export * from './shutdown-state';
export * from './console-to-log';
