// Mutation testing of domain: webhook signing and secrets, key scopes and API keys, sharding
// (which worker owns a session), webhook retry timing.
import { mutationConfig } from './base.mjs';

export default mutationConfig('domain', {
  mutate: [
    'key-scope.ts',
    'api-key.ts',
    'sharding/*.ts',
    // The balanced assignment's tests are property tests over thousands of shards: too slow to
    // run per mutant on a shared 2-core machine. Its own run: `npm run mutation shard-assignment`.
    '!sharding/shard-assignment.ts',
    'webhook/sign-webhook.ts',
    'webhook/webhook-secret.ts',
    'webhook/delivery-retry.ts',
    '!**/index.ts',
    '!**/*.spec.ts',
  ],
});
