// Mutation testing of the ownership code in coordination: shard leases (fenced by token), their
// upkeep and the shard keeper that adopts and drops shards. A subset of coordination.stryker.mjs.
import { mutationConfig } from './base.mjs';

export default mutationConfig(
  'coordination',
  {
    mutate: [
      'ownership/shard-lease-store.ts',
      'ownership/redis-shard-lease-store.ts',
      'ownership/memory-shard-lease-store.ts',
      'ownership/shared-lease-table.ts',
      'ownership/shard-keeper.ts',
      'ownership/lease-upkeep.ts',
    ],
    timeoutMS: 8_000,
  },
  'ownership',
);
