import { inboundEventSubject, streamEventSchema } from '@jumbe/contracts';
import { shardOf } from '@jumbe/domain';
import type { GroupEvent } from '@jumbe/network';
import { StatusRelay } from './status-relay';
import type { EventTypeFilter } from './subscription-filter';
import { RecordingPublisher } from './test-support/recording-publisher';

const ref = { accountId: 'acc', sessionId: 'main' };
const groupId = '120363000000000001@g.us';
const author = '254700000001@s.whatsapp.net';
const added: GroupEvent = {
  kind: 'participants',
  groupId,
  action: 'add',
  participants: ['254711000001@s.whatsapp.net'],
  author,
};
const renamed: GroupEvent = {
  kind: 'updated',
  groupId,
  changes: { subject: 'Wauzaji', description: null },
  author,
};

/** An account subscribed to exactly `events`. */
const subscribedTo = (...events: string[]): EventTypeFilter => ({
  wants: async (_accountId, event) => events.includes(event),
});

describe('StatusRelay: group events', () => {
  it('publishes group.participants and group.updated of the schema, on the session subject', async () => {
    const publisher = new RecordingPublisher();
    const relay = new StatusRelay(publisher, subscribedTo('group.participants', 'group.updated'));
    await relay.groupChanged(ref, added);
    await relay.groupChanged(ref, renamed);

    const payloads = publisher.events.map((event) => streamEventSchema.parse(event.payload));
    expect(payloads).toEqual([
      expect.objectContaining({
        event: 'group.participants',
        customerId: 'acc',
        sessionId: 'main',
        group: { id: groupId, action: 'add', participants: ['254711000001@s.whatsapp.net'], author },
      }),
      expect.objectContaining({
        event: 'group.updated',
        group: { id: groupId, subject: 'Wauzaji', description: null, author },
      }),
    ]);
    const subject = inboundEventSubject(shardOf('acc', 'main'), 'acc', 'main');
    expect(publisher.events.every((event) => event.subject === subject)).toBe(true);
    expect(new Set(publisher.events.map((event) => event.eventId)).size).toBe(2);
  });

  it('keeps them off the stream for an account that did not opt in (the spec default)', async () => {
    const publisher = new RecordingPublisher();
    const relay = new StatusRelay(publisher, subscribedTo('message.received'));
    await relay.groupChanged(ref, added);
    await relay.groupChanged(ref, renamed);
    expect(publisher.events).toEqual([]);
  });

  it('publishes only the type subscribed to', async () => {
    const publisher = new RecordingPublisher();
    const relay = new StatusRelay(publisher, subscribedTo('group.updated'));
    await relay.groupChanged(ref, added);
    await relay.groupChanged(ref, renamed);
    expect(publisher.events.map((event) => (event.payload as { event: string }).event)).toEqual([
      'group.updated',
    ]);
  });
});
