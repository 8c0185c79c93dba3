export * from './infrastructure';
export * from './start-infrastructure';
export * from './secret-key-file';
export * from './health-probes';
export * from './run-background-service';
export * from './telemetry-bindings';
