// Mutation testing of the gateway's usage metering alone (monthly API-hit caps, send counters,
// their write-behind to PostgreSQL): money. A subset of gateway.stryker.mjs that finishes in minutes
// on a loaded machine, where the whole gateway run (601 mutants, most of them run by the in-process
// HTTP specs) takes hours.
import { mutationConfig } from './base.mjs';

export default mutationConfig(
  'gateway',
  {
    mutate: ['metering/usage-meter.ts'],
    tests: ['metering/usage-meter.spec.ts'],
    timeoutMS: 8_000,
  },
  'gateway-metering',
);
