// Mutation testing of domain: signing, key scopes and API keys, sharding, webhook retries and secrets, usage counting.
import { mutationConfig } from './base.mjs';

export default mutationConfig('domain', {
  mutate: [
    'key-scope.ts',
    'api-key.ts',
    'usage-counters.ts',
    'billing-cycle.ts',
    'sharding/*.ts',
    'webhook/*.ts',
    'crypto/*.ts',
    '!**/index.ts',
    '!**/*.spec.ts',
  ],
});
