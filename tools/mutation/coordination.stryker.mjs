// Mutation testing of coordination: shard leases and ownership (who may run a session), usage
// counters and rate limits on Redis. `npm run mutation ownership` runs the lease code alone.
import { mutationConfig } from './base.mjs';

export default mutationConfig('coordination', {
  mutate: [
    'ownership/*.ts',
    'redis-rate-limiter.ts',
    'redis-usage-counter-store.ts',
    '!**/index.ts',
    '!**/*.spec.ts',
  ],
  timeoutMS: 8_000,
});
