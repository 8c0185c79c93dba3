export * from './delivery-log';
export * from './webhook-dispatcher-ports';
export * from './webhook-lookup';
