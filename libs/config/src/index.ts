export * from './jumbe-config';
export * from './load-config';
export * from './listening-address-file';
export * from './version';
