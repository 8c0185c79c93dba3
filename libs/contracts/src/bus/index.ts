export * from './session-command';
export * from './command-results';
