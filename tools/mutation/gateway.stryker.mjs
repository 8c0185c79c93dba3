// Mutation testing of gateway: API-key authentication and scopes, usage metering and quotas, idempotent sends.
import { mutationConfig } from './base.mjs';

export default mutationConfig('gateway', {
  mutate: ['auth/*.ts', 'metering/*.ts', 'messages/message-sender.ts', '!**/*.spec.ts'],
  timeoutMS: 8_000,
});
