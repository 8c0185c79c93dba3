export * from './session-worker-bindings';
