// Webhook signing: secrets, delivery ids and the signature headers of a delivery (CONTRACT §6).
export * from './webhook-secret';
export * from './sign-webhook';
export * from './delivery-id';
export * from './masked-webhook-url';
export * from './webhook-vault';
export * from './delivery-retry';
