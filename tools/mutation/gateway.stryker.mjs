// Mutation testing of gateway: API-key authentication and scopes, usage metering and quotas, idempotent sends.
// Only the specs that exercise them run (unit and in-process HTTP): the OpenAPI and event-stream
// specs cover none of these files, and the generated-client check depends on a build.
import { mutationConfig } from './base.mjs';

export default mutationConfig('gateway', {
  mutate: ['auth/*.ts', 'metering/*.ts', 'messages/message-sender.ts', '!**/*.spec.ts'],
  tests: [
    'auth/*.spec.ts',
    'metering/*.spec.ts',
    'messages/*.spec.ts',
    'gateway.inject.spec.ts',
    'http/json-body.spec.ts',
  ],
  timeoutMS: 8_000,
});
