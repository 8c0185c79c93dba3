export * from './link-transition';
export * from './session-view';
export * from './resumable-end';
