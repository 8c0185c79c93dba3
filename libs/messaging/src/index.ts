// NATS adapters behind small ports, plus the in-process adapter for the all-in-one mode.
export * from './messaging-logger';
export * from './bus-errors';
export * from './message-bus';
export * from './json-wire';
export * from './subject-pattern';
export * from './nats-message-bus';
export * from './nats-headers';
export * from './in-process-message-bus';
export * from './event-publisher';
export * from './jetstream-event-publisher';
export * from './event-source';
export * from './durable-event-log';
export * from './jetstream-event-source';
export * from './namespaced-message-bus';
