// Mutation testing of the ownership code in coordination: shard leases (fenced by token), the
// worker registry, the in-process lease upkeep and the shard keeper that adopts and drops shards.
// A subset of coordination.stryker.mjs. Only the ownership specs run: their short leases are
// timed by conditions (shard-lease-store.spec.ts) or on Jest's fake clock (shard-keeper.spec.ts),
// so a loaded machine cannot fail them. Left out: the lease upkeep thread (threaded-lease-upkeep,
// shared-lease-table, lease-upkeep-thread.cjs), whose spec blocks the main thread for seconds
// per test by design, far too slow to run per mutant.
import { mutationConfig } from './base.mjs';

export default mutationConfig(
  'coordination',
  {
    mutate: [
      'ownership/redis-shard-lease-store.ts',
      'ownership/memory-shard-lease-store.ts',
      'ownership/ownership-arguments.ts',
      'ownership/redis-worker-registry.ts',
      'ownership/memory-worker-registry.ts',
      'ownership/in-thread-lease-upkeep.ts',
      'ownership/shard-keeper.ts',
    ],
    tests: [
      'ownership/shard-lease-store.spec.ts',
      'ownership/shard-keeper.spec.ts',
      'ownership/worker-registry.spec.ts',
      'ownership/ownership-redis-unavailability.spec.ts',
    ],
    timeoutMS: 8_000,
  },
  'ownership',
);
