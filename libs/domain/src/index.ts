export * from './api-key';
export * from './billing-cycle';
export * from './key-scope';
export * from './recipient';
export * from './session-id';
export * from './session-state';
export * from './usage-counters';
export * from './inbound';
