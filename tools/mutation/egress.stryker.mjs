// Mutation testing of egress: the SSRF filter every webhook and media download goes through
// (which addresses and URLs are refused, checked again at connect time).
import { mutationConfig } from './base.mjs';

export default mutationConfig('egress', {
  mutate: [
    'classify-address.ts',
    'address-kind.ts',
    'parse-ip-literal.ts',
    'url-policy.ts',
    'check-url-shape.ts',
    'create-guarded-lookup.ts',
  ],
});
