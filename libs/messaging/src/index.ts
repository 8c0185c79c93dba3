// NATS adapters behind small ports, plus the in-process adapter for the all-in-one mode.
export * from './messaging-logger';
export * from './bus-errors';
export * from './message-bus';
export * from './json-wire';
export * from './subject-pattern';
export * from './nats-message-bus';
export * from './in-process-message-bus';
// Durable event streams (JetStream: inbound messages → webhook dispatcher) will get their own
// port here, e.g. `event-stream.ts` with `nats-event-stream.ts` (sharing
// NatsMessageBus.connection) and `in-process-event-stream.ts`.
