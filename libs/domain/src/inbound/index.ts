// Inbound messages: what a driver hands up, and the `message.received` event built from it.
export * from './inbound-network-message';
export * from './message-received-event';
export * from './normalise-inbound';
export * from './inbound-sender';
export * from './well-formed-text';
