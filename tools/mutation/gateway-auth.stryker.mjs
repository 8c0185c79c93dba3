// Mutation testing of the gateway's authentication alone (API keys and their cache, account
// facts, the admin token, dashboard and operator sessions, the customer and admin guards, the
// per-minute limits): who may act on a tenant. A subset of gateway.stryker.mjs that finishes in
// well under an hour on a loaded machine; its specs are the auth folder's own, plus the in-process
// HTTP spec whose first tests run the customer guard's refusals (401, 403, 402, admin 401).
import { mutationConfig } from './base.mjs';

export default mutationConfig(
  'gateway',
  {
    mutate: ['auth/**/*.ts', '!**/*.spec.ts'],
    tests: ['auth/*.spec.ts', 'gateway.inject.spec.ts'],
    timeoutMS: 8_000,
  },
  'gateway-auth',
);
