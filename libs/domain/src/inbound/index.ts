// Inbound messages: what a driver hands up, and the rules its events are built from (the events'
// shapes and their builders are libs/contracts').
export * from './inbound-network-message';
export * from './normalise-inbound';
export * from './inbound-sender';
export * from './well-formed-text';
