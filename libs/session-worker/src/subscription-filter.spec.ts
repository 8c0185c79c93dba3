import { ACCESS_INVALIDATION_TOPIC, encodeAccessInvalidation } from '@jumbe/contracts';
import { MemoryInvalidationBus } from '@jumbe/coordination';
import type { MessageStatusReport } from '@jumbe/network';
import { StatusRelay } from './status-relay';
import { EVERY_EVENT, SubscriptionFilter } from './subscription-filter';
import { LossyInvalidationBus } from './test-support/lossy-invalidation-bus';
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

  it('without a filter (EVERY_EVENT), every event is published: the dispatcher still decides', async () => {
    expect(await EVERY_EVENT.wants('acct-any', 'message.status')).toBe(true);
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

describe('SubscriptionFilter: a webhook change counts from the moment it is announced, even when announcements go astray', () => {
  /** The webhook table as the worker reads it: counts reads, can fail, can hold a read open. */
  class Subscriptions {
    readonly events = new Map<string, readonly string[] | null>();
    reads = 0;
    failing = false;
    private gate: Promise<void> | null = null;

    /** The next read takes its snapshot now but answers only once the returned function is called. */
    holdNextRead(): () => void {
      let release = (): void => undefined;
      this.gate = new Promise<void>((resolve) => (release = resolve));
      return () => release();
    }

    readonly lookup = {
      eventsOf: async (accountId: string): Promise<readonly string[] | null> => {
        this.reads++;
        if (this.failing) throw new Error('database unavailable');
        const snapshot = this.events.get(accountId) ?? null;
        const gate = this.gate;
        this.gate = null;
        if (gate) await gate;
        return snapshot;
      },
    };
  }

  const webhookChanged = (bus: LossyInvalidationBus, accountId: string) =>
    bus.publish(ACCESS_INVALIDATION_TOPIC, encodeAccessInvalidation({ v: 1, kind: 'webhook', accountId }));

  async function started() {
    const table = new Subscriptions();
    const bus = new LossyInvalidationBus();
    const filter = new SubscriptionFilter(table.lookup, bus);
    await filter.start();
    return { table, bus, filter };
  }

  it('drops every cached answer when an invalidation cannot be read (a newer publisher)', async () => {
    const { table, bus, filter } = await started();
    table.events.set('acct-a', ['message.received']);
    table.events.set('acct-b', ['message.received']);
    expect(await filter.wants('acct-a', 'message.status')).toBe(false);
    expect(await filter.wants('acct-b', 'message.status')).toBe(false);

    table.events.set('acct-a', ['message.status']);
    table.events.set('acct-b', ['message.status']);
    await bus.publish(ACCESS_INVALIDATION_TOPIC, '{"v":2,"kind":"webhook-v2"}');
    expect(await filter.wants('acct-a', 'message.status')).toBe(true);
    expect(await filter.wants('acct-b', 'message.status')).toBe(true);
  });

  it('drops every cached answer after announcements may have been lost (a reconnect)', async () => {
    const { table, bus, filter } = await started();
    table.events.set('acct-a', ['message.received']);
    expect(await filter.wants('acct-a', 'session.status')).toBe(false);

    table.events.set('acct-a', ['session.status']);
    bus.simulatePossibleLoss();
    expect(await filter.wants('acct-a', 'session.status')).toBe(true);
  });

  it("keeps an account's answer when another account's webhook or a key changes", async () => {
    const { table, bus, filter } = await started();
    table.events.set('acct-a', ['session.status']);
    expect(await filter.wants('acct-a', 'session.status')).toBe(true);
    const readsBefore = table.reads;

    await webhookChanged(bus, 'acct-other');
    await bus.publish(
      ACCESS_INVALIDATION_TOPIC,
      encodeAccessInvalidation({ v: 1, kind: 'key', keyId: 'k1' }),
    );
    expect(await filter.wants('acct-a', 'session.status')).toBe(true);
    expect(table.reads).toBe(readsBefore);
  });

  it('does not keep an answer read before a change announced while the read was under way', async () => {
    const { table, bus, filter } = await started();
    table.events.set('acct-a', ['message.received']);
    const release = table.holdNextRead();
    const stale = filter.wants('acct-a', 'message.status');

    // The customer subscribes while the old subscriptions are still on their way to the worker.
    table.events.set('acct-a', ['message.status']);
    await webhookChanged(bus, 'acct-a');
    // A question asked after the announcement does not wait for (or share) the old read.
    expect(await filter.wants('acct-a', 'message.status')).toBe(true);

    release();
    expect(await stale).toBe(false);
    // The old answer arrived last, but was not cached over the new one.
    expect(await filter.wants('acct-a', 'message.status')).toBe(true);
  });

  it('after a change, shares the one new read among concurrent asks even when the old read ends meanwhile', async () => {
    const { table, bus, filter } = await started();
    table.events.set('acct-a', ['message.received']);
    const releaseOld = table.holdNextRead();
    const old = filter.wants('acct-a', 'message.status');

    table.events.set('acct-a', ['message.status']);
    await webhookChanged(bus, 'acct-a');
    const releaseNew = table.holdNextRead();
    const first = filter.wants('acct-a', 'message.status');
    releaseOld();
    expect(await old).toBe(false);
    // Asked while the new read is still under way: waits for it rather than reading again.
    const second = filter.wants('acct-a', 'message.status');
    releaseNew();
    expect([await first, await second]).toEqual([true, true]);
    expect(table.reads).toBe(2);
  });

  it('does not cache before it hears announcements (start not yet called), so no change is missed', async () => {
    const table = new Subscriptions();
    const filter = new SubscriptionFilter(table.lookup, new LossyInvalidationBus());
    table.events.set('acct-a', ['message.received']);
    expect(await filter.wants('acct-a', 'message.status')).toBe(false);
    table.events.set('acct-a', ['message.status']);
    expect(await filter.wants('acct-a', 'message.status')).toBe(true);
  });

  it('asks the database again after a failed read instead of keeping the doubt', async () => {
    const { table, filter } = await started();
    table.events.set('acct-a', ['message.received']);
    table.failing = true;
    expect(await filter.wants('acct-a', 'message.status')).toBe(true);
    table.failing = false;
    expect(await filter.wants('acct-a', 'message.status')).toBe(false);
  });
});
