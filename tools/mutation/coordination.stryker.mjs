// Mutation testing of coordination's counters and rate limits: the usage counters that enforce a
// plan's monthly caps (Redis Lua scripts and their all-in-one twin) and the fixed-window rate
// limiter behind 429 `rate_limited`. The ownership code (shard leases, worker registry, keeper)
// has its own run, `npm run mutation ownership`; the invalidation buses and the Redis client's
// plumbing are left out (they guard no tenant, money or message by themselves).
// Only the specs of these files run: the lib's other specs (leases, the lease upkeep thread,
// invalidation) are slow and cover none of them.
import { mutationConfig } from './base.mjs';

export default mutationConfig('coordination', {
  mutate: [
    'rate-limiter.ts',
    'redis-rate-limiter.ts',
    'memory-rate-limiter.ts',
    'usage-counter-store.ts',
    'redis-usage-counter-store.ts',
    'memory-usage-counter-store.ts',
  ],
  tests: ['rate-limiter.spec.ts', 'usage-counter-store.spec.ts', 'redis-unavailability.spec.ts'],
  timeoutMS: 8_000,
});
