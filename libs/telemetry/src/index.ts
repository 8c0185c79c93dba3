export * from './telemetry';
export * from './telemetry.module';
export * from './http-instrumentation';
export * from './instrument';
export * from './request-id-header';
export * from './context-carrying-bus';
export * from './spans';
export * from './network-spans';
