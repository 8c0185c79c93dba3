// Mutation testing of network: the WhatsApp driver's disconnect policy (which close codes clear credentials or reconnect).
import { mutationConfig } from './base.mjs';

export default mutationConfig('network', {
  mutate: ['whatsapp/disconnect-policy.ts'],
  timeoutMS: 10_000,
});
