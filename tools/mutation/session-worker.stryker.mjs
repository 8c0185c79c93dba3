// Mutation testing of session-worker: the inbound path: a received message to its one event on the stream.
import { mutationConfig } from './base.mjs';

export default mutationConfig('session-worker', {
  mutate: ['inbound-relay.ts', 'subscription-filter.ts'],
  timeoutMS: 10_000,
});
