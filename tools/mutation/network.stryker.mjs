// Mutation testing of network: the WhatsApp driver's disconnect policy (which close codes clear
// credentials, reconnect or end the session). Only its spec runs: the lib's suite runs Baileys.
import { mutationConfig } from './base.mjs';

export default mutationConfig('network', {
  mutate: ['whatsapp/disconnect-policy.ts'],
  tests: ['whatsapp/pure-helpers.spec.ts', 'whatsapp/disconnect-policy.spec.ts'],
  timeoutMS: 10_000,
});
