import { describeWebhookContract } from './support/webhook-contract';
import { startAllInOne, startDistributed } from './support/topology';

describe('webhooks, all-in-one', () => {
  describeWebhookContract(() => startAllInOne({ JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }));
});

describe('webhooks, distributed (2 gateways, 2 workers, 1 dispatcher)', () => {
  describeWebhookContract(() =>
    startDistributed(2, { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }, 2, { dispatchers: 1 }),
  );
});
