// @jumbe/webhook-receiver: verify and de-duplicate Jumbe webhook deliveries. Depends on node:crypto
// only, and on no other package of this repository, so it can be published on its own.
export * from './errors';
export * from './events';
export * from './verify-delivery';
export * from './delivery-deduplicator';
