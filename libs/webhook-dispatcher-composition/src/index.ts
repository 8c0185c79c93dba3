export * from './webhook-dispatcher-bindings';
