import { describeWebhookEventsContract, RETRY_BASE_MS } from './support/webhook-events-contract';
import { startAllInOne, startDistributed } from './support/topology';

const settings = { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true', JUMBE_WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS) };

describe('opt-in webhook events, all-in-one', () => {
  describeWebhookEventsContract(() => startAllInOne(settings));
});

describe('opt-in webhook events, distributed (2 gateways, 2 workers, 1 dispatcher)', () => {
  describeWebhookEventsContract(() => startDistributed(2, settings, 2, { dispatchers: 1 }));
});
