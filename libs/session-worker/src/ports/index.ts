export * from './credential-store';
export * from './session-store';
export * from './session-worker-ports';
export * from './webhook-subscription-lookup';
