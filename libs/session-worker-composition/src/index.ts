export * from './session-worker-bindings';
export * from './session-worker-infrastructure';
