// Mutation testing of domain's balanced shard assignment (which worker should own which shard),
// apart from domain.stryker.mjs because its property tests are slow per mutant.
import { mutationConfig } from './base.mjs';

export default mutationConfig('domain', { mutate: ['sharding/shard-assignment.ts'] }, 'shard-assignment');
