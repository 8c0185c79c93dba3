import { describeWebhookEventsContract } from './support/webhook-events-contract';
import { startAllInOne, startDistributed } from './support/topology';

describe('opt-in webhook events, all-in-one', () => {
  describeWebhookEventsContract(() => startAllInOne({ JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }));
});

describe('opt-in webhook events, distributed (2 gateways, 2 workers, 1 dispatcher)', () => {
  describeWebhookEventsContract(() =>
    startDistributed(2, { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }, 2, { dispatchers: 1 }),
  );
});
