// Mutation testing of webhook-dispatcher's delivery path: a session's events POSTed one after the
// other, each attempt recorded before its event is acknowledged (event-dispatcher's drain, room
// and settle, lines 204-300; delivery-recorder) and the opt-in retry schedule (retry-policy).
// Every mutant there runs the dispatcher specs, each of which migrates a database of its own: a
// few mutants a minute on the shared 2-core machine. A run over the five delivery files (435
// mutants) was on course for 75 minutes and was stopped; left for a quieter machine: fair-slots,
// unrecorded-event-rule, the rest of event-dispatcher (accept, attempt, backoff), the poster, the
// webhook directory and the NATS command handler.
import { mutationConfig } from './base.mjs';

export default mutationConfig('webhook-dispatcher', {
  mutate: ['event-dispatcher.ts:204-300', 'delivery-recorder.ts', 'retry-policy.ts'],
  tests: [
    'event-dispatcher.spec.ts',
    'event-dispatcher.retries.spec.ts',
    'event-dispatcher.retry-metrics.spec.ts',
    'event-dispatcher.first-hand-out.spec.ts',
    'dispatcher-shard-owner.spec.ts',
    'retry-policy.spec.ts',
  ],
  timeoutMS: 8_000,
});
