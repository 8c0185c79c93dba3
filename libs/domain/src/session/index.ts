export * from './link-transition';
export * from './session-view';
