export * from './coordination/access-invalidation';
export * from './http';
