export * from './bus';
export * from './coordination/access-invalidation';
export * from './events/inbound-event';
export * from './events/stored-inbound-message';
export * from './http';
export * from './events/webhook';
export * from './media/media-object';
