// Mutation testing of persistence: the repositories, whose queries carry the tenant condition and the credential fence.
import { mutationConfig } from './base.mjs';

export default mutationConfig('persistence', {
  mutate: ['repositories/*.ts', '!repositories/*.error.ts', '!**/*.spec.ts'],
  timeoutMS: 10_000,
});
