// Mutation testing of domain's balanced shard assignment (which worker should own which shard),
// apart from domain.stryker.mjs because its property tests are slow per mutant.
import { mutationConfig } from './base.mjs';

export default mutationConfig(
  'domain',
  {
    mutate: ['sharding/shard-assignment.ts'],
    // Only these specs import the assignment; domain's other specs cannot kill its mutants, and
    // leaving them out spares the dry run their time on a loaded machine.
    tests: ['sharding/shard-assign*.spec.ts'],
  },
  'shard-assignment',
);
