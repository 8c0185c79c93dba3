export * from './webhook-dispatcher-bindings';
export * from './webhook-dispatcher-infrastructure';
