export * from './event-envelope';
export * from './message-received.event';
export * from './webhook-events';
export * from './webhook-test.event';
export * from './event-subscription';
export * from './session-status.event';
export * from './message-status.event';
