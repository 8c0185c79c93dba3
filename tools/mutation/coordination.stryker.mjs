// Mutation testing of coordination: shard leases and ownership, usage counters and rate limits (memory and Redis).
import { mutationConfig } from './base.mjs';

export default mutationConfig('coordination', {
  mutate: ['ownership/*.ts', '*rate-limiter.ts', '*usage-counter-store.ts', '!**/index.ts', '!**/*.spec.ts'],
  timeoutMS: 30_000,
});
