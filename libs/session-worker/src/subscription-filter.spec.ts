import { ACCESS_INVALIDATION_TOPIC, encodeAccessInvalidation } from '@jumbe/contracts';
import { MemoryInvalidationBus } from '@jumbe/coordination';
import type { MessageStatusReport } from '@jumbe/network';
import { StatusRelay } from './status-relay';
import { SubscriptionFilter } from './subscription-filter';
import { RecordingPublisher } from './test-support/recording-publisher';

describe('SubscriptionFilter: opt-in events stay off the stream for accounts that did not opt in', () => {
  const subscriptions = new Map<string, readonly string[] | null>();
  let reads = 0;
  let failing = false;
  const invalidations = new MemoryInvalidationBus();
  const filter = new SubscriptionFilter(
    {
      eventsOf: async (accountId) => {
        reads++;
        if (failing) throw new Error('database unavailable');
        return subscriptions.get(accountId) ?? null;
      },
    },
    invalidations,
  );
  beforeAll(() => filter.start());

  const changed = (accountId: string) =>
    invalidations.publish(
      ACCESS_INVALIDATION_TOPIC,
      encodeAccessInvalidation({ v: 1, kind: 'webhook', accountId }),
    );
  const sent = (messageId: string): MessageStatusReport => ({
    messageId,
    to: '254711000001@s.whatsapp.net',
    status: 'server_ack',
    at: new Date('2030-01-01T00:00:00Z'),
  });

  it('publishes a message.status only once the account subscribes, from that moment on', async () => {
    const publisher = new RecordingPublisher();
    const relay = new StatusRelay(publisher, filter);
    const ref = { accountId: 'acct-a', sessionId: 'main' };
    subscriptions.set('acct-a', ['message.received']);
    await relay.messageStatus(ref, sent('M1'));
    expect(publisher.events).toHaveLength(0);

    subscriptions.set('acct-a', ['message.received', 'message.status']);
    await changed('acct-a');
    await relay.messageStatus(ref, sent('M2'));
    expect(publisher.events.map((event) => event.eventId)).toEqual([
      'acct-a:main:message.status:M2:server_ack',
    ]);
  });

  it('asks the database once per account while nothing changes', async () => {
    subscriptions.set('acct-b', ['session.status']);
    const before = reads;
    for (let index = 0; index < 5; index++) expect(await filter.wants('acct-b', 'session.status')).toBe(true);
    expect(await filter.wants('acct-b', 'message.status')).toBe(false);
    expect(reads - before).toBe(1);
  });

  it('reads an account once when many of its sessions ask at the same moment (a restore)', async () => {
    subscriptions.set('acct-c', ['session.status']);
    const before = reads;
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => filter.wants('acct-c', 'session.status')),
    );
    expect(answers.every(Boolean)).toBe(true);
    expect(reads - before).toBe(1);
  });

  it('takes nothing for an account without a usable webhook, and publishes when it cannot tell', async () => {
    expect(await filter.wants('acct-none', 'session.status')).toBe(false);
    failing = true;
    try {
      expect(await filter.wants('acct-unknown', 'message.status')).toBe(true);
    } finally {
      failing = false;
    }
  });
});
