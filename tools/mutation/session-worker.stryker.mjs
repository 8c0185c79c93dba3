// Mutation testing of session-worker: the inbound path, a received message to its one event on
// the stream, and the filter that keeps unsubscribed events off it. Only their specs run: the
// lib's suite runs Baileys against the emulator.
import { mutationConfig } from './base.mjs';

export default mutationConfig('session-worker', {
  mutate: ['inbound-relay.ts', 'subscription-filter.ts'],
  tests: ['inbound-relay.spec.ts', 'subscription-filter.spec.ts'],
  timeoutMS: 10_000,
});
