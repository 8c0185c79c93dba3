// A test-only look at the server's event schemas (libs/contracts): the package itself depends on
// nothing of this repository, so its hand-written types are held to the schemas here instead.
import {
  callReceivedEventSchema,
  deliveryIdField,
  groupParticipantsEventSchema,
  groupUpdatedEventSchema,
  messageEditedEventSchema,
  messagePollVoteEventSchema,
  messageReactionEventSchema,
  messageReceivedEventSchema,
  messageRevokedEventSchema,
  messageStatusEventSchema,
  sessionStatusEventSchema,
  WEBHOOK_EVENT_SCHEMAS,
  webhookTestEventSchema,
} from '@jumbe/contracts';
import type { z } from 'zod';
import type {
  CallReceivedEvent,
  GroupParticipantsEvent,
  GroupUpdatedEvent,
  MessageEditedEvent,
  MessagePollVoteEvent,
  MessageReactionEvent,
  MessageReceivedEvent,
  MessageRevokedEvent,
  MessageStatusEvent,
  SessionStatusEvent,
  WebhookEvent,
  WebhookTestEvent,
} from './events';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const delivered = {
  'message.received': messageReceivedEventSchema.extend(deliveryIdField),
  'message.status': messageStatusEventSchema.extend(deliveryIdField),
  'message.reaction': messageReactionEventSchema.extend(deliveryIdField),
  'message.revoked': messageRevokedEventSchema.extend(deliveryIdField),
  'message.edited': messageEditedEventSchema.extend(deliveryIdField),
  'message.poll_vote': messagePollVoteEventSchema.extend(deliveryIdField),
  'session.status': sessionStatusEventSchema.extend(deliveryIdField),
  'call.received': callReceivedEventSchema.extend(deliveryIdField),
  'group.participants': groupParticipantsEventSchema.extend(deliveryIdField),
  'group.updated': groupUpdatedEventSchema.extend(deliveryIdField),
  'webhook.test': webhookTestEventSchema.extend(deliveryIdField),
};
type Delivered<N extends keyof typeof delivered> = z.output<(typeof delivered)[N]>;

// Compile-time: each published type is exactly what the dispatcher delivers, and every event
// type of the server has one here.
const checks = {
  'message.received': true satisfies Equal<MessageReceivedEvent, Delivered<'message.received'>>,
  'message.status': true satisfies Equal<MessageStatusEvent, Delivered<'message.status'>>,
  'message.reaction': true satisfies Equal<MessageReactionEvent, Delivered<'message.reaction'>>,
  'message.revoked': true satisfies Equal<MessageRevokedEvent, Delivered<'message.revoked'>>,
  'message.edited': true satisfies Equal<MessageEditedEvent, Delivered<'message.edited'>>,
  'message.poll_vote': true satisfies Equal<MessagePollVoteEvent, Delivered<'message.poll_vote'>>,
  'session.status': true satisfies Equal<SessionStatusEvent, Delivered<'session.status'>>,
  'call.received': true satisfies Equal<CallReceivedEvent, Delivered<'call.received'>>,
  'group.participants': true satisfies Equal<GroupParticipantsEvent, Delivered<'group.participants'>>,
  'group.updated': true satisfies Equal<GroupUpdatedEvent, Delivered<'group.updated'>>,
  'webhook.test': true satisfies Equal<WebhookTestEvent, Delivered<'webhook.test'>>,
} satisfies Record<keyof typeof WEBHOOK_EVENT_SCHEMAS, true> & Record<WebhookEvent['event'], true>;

describe('the receiver package knows every event type', () => {
  it('has one type per server event, equal to its schema', () => {
    expect(Object.keys(checks).sort()).toEqual(Object.keys(WEBHOOK_EVENT_SCHEMAS).sort());
    expect(Object.keys(delivered).sort()).toEqual(Object.keys(WEBHOOK_EVENT_SCHEMAS).sort());
  });
});
