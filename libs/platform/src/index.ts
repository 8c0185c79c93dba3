export * from './infrastructure';
export * from './logger';
export * from './secret-key-file';
export * from './start-infrastructure';
export * from './version';
export * from './run-service';
export * from './health/health.module';
export * from './run-background-service';
