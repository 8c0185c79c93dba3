// Mutation testing of persistence: the repositories that hold an account's own rows (webhooks,
// API keys, the delivery log), the usage counters behind the monthly caps, the idempotency records
// and the inbound outbox. Their queries carry the tenant condition; SQL text is mutated only as a
// whole (Stryker empties a string), so the hand-made reviews of issue 34 (a tenant condition
// dropped from a query) stay the check for SQL, and this run checks the code around it.
// Each spec migrates a database of its own, so a mutant costs seconds: the session claims and
// credential fence (session.repository, network-credential-store) and the message stores are
// left for a quieter machine.
import { mutationConfig } from './base.mjs';

const FILES = ['usage', 'idempotency', 'inbound-outbox', 'webhook', 'webhook-delivery', 'api-key', 'account'];

export default mutationConfig('persistence', {
  mutate: FILES.map((name) => `repositories/${name}.repository.ts`),
  tests: [
    ...FILES.map((name) => `repositories/${name}.repository.spec.ts`),
    'repositories/webhook-delivery-batch.repository.spec.ts',
  ],
  timeoutMS: 10_000,
});
