export * from './jumbe-config';
export * from './load-config';
