// The event types this package generates from the OpenAPI document and the ones the receiver
// package declares (held to the server's zod schemas by its own test) describe the same bodies,
// so a delivery verified by either is typed alike.
import type * as Receiver from '@jumbe/webhook-receiver';
import type * as Generated from './webhook-events';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const checks = {
  'message.received': true satisfies Same<Generated.MessageReceivedEvent, Receiver.MessageReceivedEvent>,
  'message.status': true satisfies Same<Generated.MessageStatusEvent, Receiver.MessageStatusEvent>,
  'message.reaction': true satisfies Same<Generated.MessageReactionEvent, Receiver.MessageReactionEvent>,
  'message.revoked': true satisfies Same<Generated.MessageRevokedEvent, Receiver.MessageRevokedEvent>,
  'message.edited': true satisfies Same<Generated.MessageEditedEvent, Receiver.MessageEditedEvent>,
  'message.poll_vote': true satisfies Same<Generated.MessagePollVoteEvent, Receiver.MessagePollVoteEvent>,
  'session.status': true satisfies Same<Generated.SessionStatusEvent, Receiver.SessionStatusEvent>,
  'call.received': true satisfies Same<Generated.CallReceivedEvent, Receiver.CallReceivedEvent>,
  'group.participants': true satisfies Same<
    Generated.GroupParticipantsEvent,
    Receiver.GroupParticipantsEvent
  >,
  'group.updated': true satisfies Same<Generated.GroupUpdatedEvent, Receiver.GroupUpdatedEvent>,
  'webhook.test': true satisfies Same<Generated.WebhookTestEvent, Receiver.WebhookTestEvent>,
} satisfies Record<Generated.WebhookEventName, true>;

describe('the generated webhook event types', () => {
  it('cover every event the receiver package knows', () => {
    // The compile-time checks above are the test (type-checked with the repository); this keeps
    // the list of event names honest at run time too.
    expect(Object.keys(checks).sort()).toEqual([
      'call.received',
      'group.participants',
      'group.updated',
      'message.edited',
      'message.poll_vote',
      'message.reaction',
      'message.received',
      'message.revoked',
      'message.status',
      'session.status',
      'webhook.test',
    ]);
  });
});
