export * from './session-command';
export * from './command-results';
export * from './dispatch-command';
