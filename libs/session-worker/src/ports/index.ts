export * from './credential-store';
export * from './send-failure-recorder';
export * from './session-store';
export * from './session-worker-ports';
