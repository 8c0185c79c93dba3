export * from './billing-cycle';
export * from './key-scope';
export * from './session-state';
export * from './usage-counters';
