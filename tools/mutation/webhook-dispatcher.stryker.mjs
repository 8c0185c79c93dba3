// Mutation testing of webhook-dispatcher: delivery to the right tenant's webhook, signing, retries and the delivery log.
import { mutationConfig } from './base.mjs';

export default mutationConfig('webhook-dispatcher', {
  mutate: ['*.ts', '!index.ts', '!webhook-dispatcher.module.ts', '!**/*.spec.ts'],
  timeoutMS: 8_000,
});
