// A test-only look at the server's event schemas (libs/contracts): the package itself depends on
// nothing of this repository, so its hand-written types are held to the schemas here instead.
import { deliveryIdField, messageReceivedEventSchema, webhookTestEventSchema } from '@jumbe/contracts';
import type { z } from 'zod';
import type { MessageReceivedEvent, WebhookEvent, WebhookTestEvent } from './events';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const delivered = {
  'message.received': messageReceivedEventSchema.extend(deliveryIdField),
  'webhook.test': webhookTestEventSchema.extend(deliveryIdField),
};

// Compile-time: each published type is exactly what the dispatcher delivers.
const messageReceived: Equal<MessageReceivedEvent, z.output<(typeof delivered)['message.received']>> = true;
const webhookTest: Equal<WebhookTestEvent, z.output<(typeof delivered)['webhook.test']>> = true;

describe('the receiver package knows every event type', () => {
  it('has one type per server event, equal to its schema', () => {
    expect([messageReceived, webhookTest]).toEqual([true, true]);
    const known: WebhookEvent['event'][] = ['message.received', 'webhook.test'];
    expect(known.sort()).toEqual(Object.keys(delivered).sort());
  });
});
