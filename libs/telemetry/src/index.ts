export * from './telemetry';
export * from './telemetry.module';
export * from './http-instrumentation';
export * from './instrument';
