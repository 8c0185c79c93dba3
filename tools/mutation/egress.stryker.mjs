// Mutation testing of egress: the SSRF filter and the guarded outbound HTTP every webhook and media download goes through.
import { mutationConfig } from './base.mjs';

export default mutationConfig('egress', {
  mutate: ['**/*.ts', '!**/index.ts', '!**/*.spec.ts'],
});
